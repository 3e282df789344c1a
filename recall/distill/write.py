"""Proposals written as pending memories: deduped by content hash against every memory of the
store, capped per session, tagged ``source: auto-distilled`` with their commit."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from recall import frontmatter
from recall.display import plural
from recall.distill.command import CommandFailed, from_command
from recall.distill.commits import (
    Commit,
    Commits,
    Renamed,
    read_commits,
    renamed_since,
    session_started,
    unlooked_for,
)
from recall.distill.heuristic import Proposal, feature_reason, heuristic, history_reason
from recall.distill_words import SWEEP_FILES
from recall.errors import BadInput, TetherError
from recall.genome.names import is_utf8
from recall.model import AUTO_DISTILLED, Memory
from recall.model import _normalize_for_hash as same_text
from recall.newest_first import newest_first
from recall.repo import TETHER_DIR
from recall.store import MemoryStore

SOURCE = AUTO_DISTILLED

DISTILLED_FROM_KEY = "distilled_from"
"""Front-matter key naming the commit a distilled memory came from."""

Notice = Callable[[str], None]


@dataclass(frozen=True)
class Outcome:
    """What became of one proposal (or of a commit that gave none worth writing)."""

    commit: str
    action: str  # written | would-write | skipped
    reason: str = ""
    id: str | None = None
    category: str | None = None
    summary: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {k: v for k, v in self.__dict__.items() if v not in (None, "")}


@dataclass
class DistillReport:
    """Everything a distill run read, wrote and passed over, and why."""

    commits: int = 0
    outcomes: list[Outcome] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    waiting: int = 0
    """Commits left unread for a caller that may run the configured command."""
    too_large: list[Outcome] = field(default_factory=list)
    """The proposals skipped as too large for a memory file: a session start, which lists no
    skip, names these (their text passed the checks for credentials and control
    characters)."""

    @property
    def written(self) -> list[Outcome]:
        """The proposals written (or that would be, on a dry run)."""
        return [o for o in self.outcomes if o.action != "skipped"]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "commits": self.commits,
            "written": [o.to_dict() for o in self.written],
            "skipped": [o.to_dict() for o in self.outcomes if o.action == "skipped"],
            "notices": self.notices,
        }


def distilled_commits(store: MemoryStore) -> dict[str, list[str]]:
    """Commit id -> ids of the auto-distilled memories (any status) that name it."""
    found: dict[str, list[str]] = {}
    for memory in store.list(status="all"):
        if memory.source != SOURCE:
            continue
        try:
            path = store.path_of(memory.id)
            fields = frontmatter.parse(path.read_text(encoding="utf-8"), path).fields
        except (OSError, UnicodeDecodeError, TetherError):
            continue  # doctor reports unreadable files
        sha = fields.get(DISTILLED_FROM_KEY)
        if isinstance(sha, str) and sha:
            found.setdefault(sha, []).append(memory.id)
    return found


def is_tethers_own(path: str) -> bool:
    """Whether a changed path is Tether's own (memories committed along with the code, its
    config): never what a memory is about."""
    return path == TETHER_DIR or path.startswith(TETHER_DIR + "/")


def _live_files(
    store: MemoryStore, commit: Commit, files: Sequence[str]
) -> tuple[tuple[str, ...], list[str]]:
    """The files of ``commit`` that still exist, in the store's normalized form, each by the
    name it has now (a file renamed since is tied by its new name, which recall needs no
    history to find); and why the others that exist cannot be tied to a memory."""
    root = store.repo_root
    kept: list[str] = []
    refused: list[str] = []
    renamed: Renamed | None = None  # asked of git once, and only for a file not found
    for raw in files:
        if root is not None and not (root / raw).is_file():
            if renamed is None:
                renamed = renamed_since(root, commit.sha)
            raw = renamed.names.get(raw, raw)
            if renamed.skipped and not (root / raw).is_file():
                refused.append(unlooked_for(raw))
                continue
        if not is_utf8(raw):  # a memory file (UTF-8 text) cannot hold the name
            if root is None or (root / raw).is_file():
                shown = repr(raw.encode("utf-8", "surrogateescape"))[1:]  # as git has it
                refused.append(
                    f"the name {shown} is not valid UTF-8, which a memory file (UTF-8 text) "
                    "cannot hold; rename the file to tie memories to it"
                )
            continue
        try:
            path = store.normalize_stored(raw)
        except BadInput:
            continue  # a name that cannot be a memory path (outside the repository)
        if root is None or (root / path).is_file():
            kept.append(path)
    return tuple(dict.fromkeys(kept)), refused


def distill(
    store: MemoryStore,
    commits: Sequence[Commit],
    *,
    categories: Sequence[str],
    limit: int,
    command: Sequence[str] = (),
    dry_run: bool = False,
    cap: str = "per session",
) -> DistillReport:
    """Propose memories from ``commits`` and write up to ``limit`` of them as pending.

    ``limit`` counts the auto-distilled memories already taken from these commits (whatever
    became of them), so running twice over one session never exceeds it; ``cap`` says what it
    applies to, in the skip of a commit past it ("per session", "per run").
    """
    report = DistillReport(commits=len(commits))
    already = distilled_commits(store)
    room = limit - len({i for c in commits for i in already.get(c.sha, [])})
    # content hash -> (id, status) of every memory, deleted ones too: a dropped proposal stays
    # dropped when the same commits are distilled again.
    known = {m.content_hash: (m.id, m.status) for m in store.list(status="all")}
    use_command = bool(command)
    cwd = store.repo_root or Path.cwd()
    over_cap = f"over the cap of {plural(limit, 'memory')} {cap} (the distill_max setting)"
    # summary (as compared) -> the proposal of this run holding it: a dry run writes none, so
    # the index cannot tell two of its proposals with one summary apart
    proposed: dict[str, str] = {}

    def skip(commit: Commit, reason: str, proposal: Proposal | None = None) -> None:
        report.outcomes.append(
            Outcome(
                commit.short,
                "skipped",
                reason,
                category=proposal.category if proposal else None,
                summary=proposal.summary if proposal else None,
            )
        )

    for commit in commits:
        if commit.sha in already:
            skip(commit, f"already distilled into {', '.join(already[commit.sha])}")
            continue
        if room <= 0:  # before the command or the heuristic: nothing could be written anyway
            skip(commit, over_cap)
            continue
        changed = [f for f in commit.files if not is_tethers_own(f)]
        if len(changed) > SWEEP_FILES:
            skip(commit, f"changes {len(changed)} files (over {SWEEP_FILES})")
            continue
        files, refused = _live_files(store, commit, changed)
        if not files:
            skip(
                commit,
                f"no file it changed can be tied to a memory: {'; '.join(refused)}"
                if refused
                else "no file it changed is left to tie a memory to (gone, or Tether's own)",
            )
            continue
        live = replace(commit, files=files)
        proposals: list[Proposal] = []
        if use_command:
            try:
                proposals = from_command(command, live, categories, cwd)
            except CommandFailed as error:
                use_command = False
                report.notices.append(
                    f"distill command {' '.join(command)!r} failed on commit {commit.short}: "
                    f"{error}; using the built-in heuristic for the rest of this run"
                )
        if not use_command:
            found = heuristic(live)
            proposals = [found] if found else []
        if not proposals:
            said = None if use_command else history_reason(live) or feature_reason(live)
            skip(commit, said or "no durable knowledge found in its message")
        gave = len(report.written)
        too_large: list[tuple[Proposal, str]] = []
        for proposal in proposals:
            if proposal.category not in categories:
                skip(commit, f"category {proposal.category} is not allowed", proposal)
                continue
            withheld = _credential(proposal, commit)
            if withheld is not None:  # its text is not shown: the reason masks the credential
                skip(commit, withheld)
                continue
            try:
                draft = store.prepare_memory(
                    summary=proposal.summary,
                    category=proposal.category,
                    files=list(proposal.files),
                    details=proposal.details,
                    author=commit.author,
                    source=SOURCE,
                )
            except BadInput as error:
                skip(commit, str(error), proposal)
                continue
            twin = known.get(draft.content_hash)
            if twin is not None:
                skip(commit, f"already known as {twin[0]} ({twin[1]})", proposal)
                continue
            holder = _summary_holder(store, draft, proposed, commit)
            if holder is not None:
                skip(commit, holder, proposal)
                continue
            if room <= 0:
                skip(commit, over_cap, proposal)
                continue
            draft = draft.with_changes(status="pending", extra={DISTILLED_FROM_KEY: commit.sha})
            problem = _over_limit(store, draft)
            if problem is not None:  # skipped alone: the store would refuse it, ending the run
                too_large.append((proposal, problem))
                continue
            room -= 1
            if dry_run:
                known[draft.content_hash] = ("an earlier proposal", "not written")
                proposed[same_text(draft.summary)] = f"the proposal from commit {commit.short}"
                report.outcomes.append(
                    Outcome(commit.short, "would-write", "", None, draft.category, draft.summary)
                )
                continue
            result = store.remember(draft)
            known[draft.content_hash] = (result.id, "pending")
            if result.duplicate_of:
                skip(commit, f"already known as {result.id} ({result.duplicate_status})", proposal)
                continue
            report.outcomes.append(
                Outcome(commit.short, "written", "", result.id, draft.category, draft.summary)
            )
        for proposal, problem in too_large:
            reason = f"{problem}; {_how_to_keep(commit, given=len(report.written) > gave)}"
            skip(commit, reason, proposal)
            report.too_large.append(report.outcomes[-1])
    return report


def _credential(proposal: Proposal, commit: Commit) -> str | None:
    """Why ``proposal`` is not written when its text or a name it holds is shaped like a
    credential (each masked, as any refusal shows it), and how to keep it anyway; None when
    clean. Checked before the store's own check, whose advice names an option distill lacks."""
    from recall import secrets_scan  # its patterns are compiled for writes only
    from recall.secret_names import labelled, name_matches

    parts = [
        f"{match.describe()} in {label}"
        for label, text in (("summary", proposal.summary), ("details", proposal.details))
        for match in secrets_scan.scan(text)
    ]
    parts += name_matches(labelled(proposal.files, commit.author, None, ()))
    if not parts:
        return None
    return (
        f"not proposed, as it holds what looks like a credential: {'; '.join(parts)}. "
        f"If it is no secret, write the memory yourself with `tether remember ... "
        f"{secrets_scan.OVERRIDE_FLAG}` (`git show {commit.short}` shows the commit)"
    )


def _summary_holder(
    store: MemoryStore, draft: Memory, proposed: dict[str, str], commit: Commit
) -> str | None:
    """Why ``draft`` is not written when an active or pending memory, or an earlier proposal
    of this run, already has its summary (two memories with one summary read as one, and
    ``tether remember`` refuses the second), naming that memory; None when none has it."""
    from recall.same_summary import same_summary

    found = same_summary(store.conn, draft)
    if found is not None:
        return (
            f"{found.reason()}; to add what this commit says, `tether supersede "
            f"{found.memory_id} SUMMARY -c CATEGORY [--details TEXT]` replaces it "
            f"(`git show {commit.short}` shows the commit)"
        )
    earlier = proposed.get(same_text(draft.summary))
    return None if earlier is None else f"{earlier} already has this summary"


def _over_limit(store: MemoryStore, draft: Memory) -> str | None:
    """What makes ``draft``'s memory file too large for the store, or None when it fits."""
    from recall.import_record import WIDEST_ID
    from recall.record_size import over_limit
    from recall.records import render_memory

    sized = draft.with_changes(id=WIDEST_ID)
    problem = over_limit(sized, render_memory(sized), store.folder.max_bytes)
    return None if problem is None else problem[0]


def _how_to_keep(commit: Commit, *, given: bool) -> str:
    """What became of a proposal too large to write, and how to keep it: once another memory
    of its commit is written, the commit counts as distilled and is never proposed from
    again, so only a person can write it (from the commit, which ``git show`` prints)."""
    from recall.memfiles import MAX_FILE_BYTES_ENV

    yourself = (
        f"to keep it, write it shorter with `tether remember` (`git show {commit.short}` "
        "shows the commit it came from)"
    )
    if given:
        return (
            "this proposal alone is not written, and distill will not propose it again once "
            f"another memory from commit {commit.short} is written (the commit then counts as "
            f"distilled): {yourself}"
        )
    return (
        f"this proposal is not written: {yourself}, or set {MAX_FILE_BYTES_ENV} to a larger "
        f"number of bytes and run `tether distill --since {commit.short}~1` again"
    )


def pending(stores: Iterable[MemoryStore]) -> list[tuple[Memory, str]]:
    """Every pending memory of the given stores, with its scope, newest first across them."""
    found = [(m, store.scope) for store in stores for m in store.list(status="pending")]
    return newest_first(found, lambda item: item[0])


def session_commits(store: MemoryStore, session_id: str) -> Commits:
    """The commits made since session ``session_id`` started (by committer time)."""
    if store.repo_root is None:
        raise BadInput("distill reads a repository's commits; run it inside one")
    started = session_started(store.conn, session_id)
    return read_commits(store.repo_root, since_time=started)
