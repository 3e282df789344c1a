"""Auto-distill: memories proposed from the knowledge written into a session's commit messages.

A commit whose message carries durable knowledge ("never", "because", "workaround"...) becomes
a proposal tied to the files it changed. Proposals pass the category allow-list, are deduped
by content hash against every memory of the store (deleted ones included, so a dropped
proposal does not come back) and are capped per session; the survivors are written through the
store like any memory, tagged ``source: auto-distilled`` with the commit in ``distilled_from``,
and held as ``pending``: never recalled until a person confirms them (``tether pending``).

At a session start, the commits read are those since the last run stopped (a mark kept in the
index), so sessions started side by side or in between never hide any.

The heuristic may be replaced by a configured command (an LLM CLI, say; the user's own setting,
never a repository's), given one commit as JSON on stdin and answering with JSON memories on
stdout; when it fails, the failure is reported and the heuristic takes over for the rest of the
run. Every word list and limit lives in :mod:`recall.distill_words`.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from recall import frontmatter
from recall.distill_words import (
    COMMAND_TIMEOUT,
    CONVENTIONAL_PREFIX,
    DETAILS_MAX,
    FEATURE_SUBJECT,
    KEYWORDS,
    MAX_COMMITS,
    PLAIN_FIRST_WORD,
    SKIP_SUBJECT,
    SUMMARY_MAX,
    SWEEP_FILES,
    TRAILER,
    TRAILING_REFERENCE,
)
from recall.errors import BadInput, NotFound, TetherError
from recall.model import CATEGORIES, Memory
from recall.repo import TETHER_DIR
from recall.store import MemoryStore

if TYPE_CHECKING:
    from recall.settings import EngineSettings

SOURCE = "auto-distilled"
DISTILLED_FROM_KEY = "distilled_from"
"""Front-matter key naming the commit a distilled memory came from."""

Notice = Callable[[str], None]


# -- commits ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Commit:
    """One commit: its id, author, full message and the files it changed (repo-relative)."""

    sha: str
    author: str
    message: str
    files: tuple[str, ...]

    @property
    def short(self) -> str:
        """The abbreviated id used in messages."""
        return self.sha[:10]


def _git(repo_root: Path, args: Sequence[str]) -> bytes:
    from recall.genome.gitcmd import GitRunner, GitUnavailable

    try:
        _, out, _ = GitRunner(repo_root).run(args)
    except GitUnavailable as error:
        raise BadInput(f"cannot read the commits of {repo_root}: {error}") from None
    return out


def resolve_commit(repo_root: Path, ref: str) -> str:
    """The full id of commit ``ref``, or BadInput naming the argument."""
    if not ref.strip() or ref.startswith("-"):
        raise BadInput(f"--since {ref!r} is not a commit")
    from recall.genome.gitcmd import GitRunner, GitUnavailable

    try:
        status, out, _ = GitRunner(repo_root).run(
            ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], check=False
        )
    except GitUnavailable as error:
        raise BadInput(f"cannot read the commits of {repo_root}: {error}") from None
    if status != 0:
        raise BadInput(f"--since {ref!r} is not a commit of this repository")
    return out.decode().strip()


def read_commits(
    repo_root: Path, *, since_commit: str | None = None, since_time: str | None = None
) -> list[Commit]:
    """Non-merge commits after ``since_commit`` (exclusive) or since ``since_time``, oldest first.

    Only the newest :data:`~recall.distill_words.MAX_COMMITS` are read; paths are relative to
    ``repo_root`` and files outside it are left out.
    """
    args = [
        "log",
        "--no-merges",
        "--reverse",
        f"-n{MAX_COMMITS}",
        "--relative",
        "--name-only",
        "-z",
        "--format=%x01%H%x1f%an%x1f%B%x02",
    ]
    if since_time:
        args.append(f"--since={since_time}")
    args.append(f"{resolve_commit(repo_root, since_commit)}..HEAD" if since_commit else "HEAD")
    out = _git(repo_root, args).decode("utf-8", "surrogateescape")
    commits: list[Commit] = []
    for chunk in out.split("\x01")[1:]:
        head, _, names = chunk.partition("\x02")
        sha, author, message = [*head.split("\x1f", 2), "", ""][:3]
        files = tuple(n.strip("\n") for n in names.split("\x00") if n.strip("\n"))
        commits.append(Commit(sha.strip(), author, message.strip(), files))
    return commits


def session_started(conn: Any, session_id: str) -> str:
    """When session ``session_id`` started (from the index), or NotFound."""
    row = conn.execute("SELECT started FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        raise NotFound(
            f"no session {session_id!r} recorded in this repository's index; "
            "use --since COMMIT instead"
        )
    return str(row[0])


def latest_session(conn: Any, *, before: str | None = None) -> str | None:
    """The id of the session that started last, if any was recorded; with ``before``, the last
    one that started before that session (the one a session start looks back on)."""
    if before is None:
        row = conn.execute("SELECT id FROM sessions ORDER BY started DESC, id LIMIT 1").fetchone()
    else:
        row = conn.execute(
            "SELECT id FROM sessions WHERE id != ? AND started <= "
            "coalesce((SELECT started FROM sessions WHERE id = ?), started) "
            "ORDER BY started DESC, id LIMIT 1",
            (before, before),
        ).fetchone()
    return None if row is None else str(row[0])


# -- the heuristic ---------------------------------------------------------------------------


def _pattern(words: Iterable[str]) -> re.Pattern[str]:
    alternatives = sorted(
        (r"\s+".join(re.escape(part) for part in word.split()) for word in words),
        key=len,
        reverse=True,
    )
    return re.compile(rf"(?<![\w'])(?:{'|'.join(alternatives)})(?![\w'])", re.IGNORECASE)


PATTERNS: dict[str, re.Pattern[str]] = {cat: _pattern(words) for cat, words in KEYWORDS.items()}

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'`(])")
_SPACE = re.compile(r"\s+")


def _plain(text: str) -> str:
    """Curly apostrophes made straight, so "don’t" matches like "don't"."""
    return text.replace("\u2019", "'").replace("\u2018", "'")


def body_lines(message: str) -> tuple[str, list[str]]:
    """The subject line, and the body lines without trailers (``Signed-off-by:`` and such)."""
    lines = _plain(message).strip().splitlines()
    if not lines:
        return "", []
    return lines[0].strip(), [line for line in lines[1:] if not TRAILER.match(line.strip())]


def sentences(lines: Sequence[str]) -> list[str]:
    """Sentences of a message body: wrapped lines joined, each bullet its own item, then split
    at sentence ends."""
    items: list[str] = []
    current: list[str] = []
    for raw in [*lines, ""]:
        line = raw.strip()
        if not line or _BULLET.match(raw):
            if current:
                items.append(" ".join(current))
            current = [_BULLET.sub("", raw).strip()] if line else []
        else:
            current.append(line)
    found: list[str] = []
    for item in items:
        found.extend(s.strip() for s in _SENTENCE_END.split(item) if s.strip())
    return found


def category_of(texts: Iterable[str], *, never: Iterable[str] = ()) -> str | None:
    """The first category (in :data:`KEYWORDS` order, leaving out ``never``) whose words occur
    in any of ``texts``."""
    texts = [_plain(text) for text in texts]
    excluded = set(never)
    for category, pattern in PATTERNS.items():
        if category in excluded:
            continue
        if any(pattern.search(text) for text in texts):
            return category
    return None


def _cap(text: str, limit: int) -> str:
    text = _SPACE.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:")
    return cut + "…"


def clean_subject(subject: str) -> str:
    """A commit subject as a memory summary: type prefix and trailing ticket reference dropped,
    first letter upper-cased when it starts a plain word (never a code name), trailing period
    dropped, capped at SUMMARY_MAX characters."""
    text = CONVENTIONAL_PREFIX.sub("", _SPACE.sub(" ", subject).strip())
    text = TRAILING_REFERENCE.sub("", text).rstrip(" .")
    if PLAIN_FIRST_WORD.match(text):
        text = text[0].upper() + text[1:]
    return _cap(text, SUMMARY_MAX)


@dataclass(frozen=True)
class Proposal:
    """A memory distill would write, and the commit it came from."""

    category: str
    summary: str
    details: str
    files: tuple[str, ...]
    commit: Commit


def heuristic(commit: Commit) -> Proposal | None:
    """The memory a commit message suggests, or None when it carries no knowledge words.

    Category: the first of :data:`KEYWORDS` whose words the message uses (a feature commit is
    never a decision: :data:`~recall.distill_words.FEATURE_SUBJECT`). Summary: the cleaned
    subject line. Details: the first body sentence carrying a word of that category (none when
    only the subject carries it). A subject that cleans to nothing gives way to that sentence.
    """
    subject, lines = body_lines(commit.message)
    if not subject or SKIP_SUBJECT.match(subject):
        return None
    body = sentences(lines)
    feature = bool(FEATURE_SUBJECT.match(subject))
    category = category_of([subject, *body], never=("decision",) if feature else ())
    if category is None:
        return None
    pattern = PATTERNS[category]
    carrying = next((s for s in body if pattern.search(s)), "")
    summary = clean_subject(subject)
    if not summary:
        summary, carrying = _cap(carrying, SUMMARY_MAX), ""
    details = _cap(carrying, DETAILS_MAX)
    if not summary:
        return None
    if details.rstrip(".") == summary:
        details = ""
    return Proposal(category, summary, details, commit.files, commit)


# -- a configured command --------------------------------------------------------------------


class CommandFailed(Exception):
    """The configured distill command could not be run or gave an unusable answer."""


def command_input(commit: Commit, categories: Sequence[str]) -> str:
    """The JSON a configured command reads on stdin for one commit."""
    return json.dumps(
        {
            "commit": commit.sha,
            "author": commit.author,
            "message": commit.message,
            "files": list(commit.files),
            "categories": list(categories),
        },
        ensure_ascii=False,
    )


def _proposal_from(item: Any, index: int, commit: Commit) -> Proposal:
    where = f"memory {index + 1}"
    if not isinstance(item, dict):
        raise CommandFailed(f"{where} is not a JSON object")
    category, summary = item.get("category"), item.get("summary")
    if category not in CATEGORIES:
        raise CommandFailed(f"{where}: category must be one of {', '.join(CATEGORIES)}")
    if not isinstance(summary, str) or not summary.strip() or "\n" in summary.strip():
        raise CommandFailed(f"{where}: summary must be one non-empty line of text")
    details = item.get("details") or ""
    if not isinstance(details, str):
        raise CommandFailed(f"{where}: details must be text")
    files = item.get("files", list(commit.files))
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise CommandFailed(f"{where}: files must be a list of paths")
    strangers = [f for f in files if f not in commit.files]
    if strangers:
        raise CommandFailed(f"{where}: {strangers[0]!r} is not a file the commit changed")
    return Proposal(category, summary.strip(), details.strip(), tuple(files), commit)


def from_command(
    argv: Sequence[str], commit: Commit, categories: Sequence[str], cwd: Path
) -> list[Proposal]:
    """Ask the configured command about one commit.

    It reads :func:`command_input` on stdin and prints a JSON list of memories (or an object
    whose ``memories`` key holds one), each with ``category``, ``summary`` and optionally
    ``details`` and ``files`` (a subset of the commit's files; all of them when absent). An
    empty list means "nothing durable here". Anything else raises :class:`CommandFailed`.
    """
    try:
        done = subprocess.run(
            list(argv),
            input=command_input(commit, categories),
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=COMMAND_TIMEOUT,
            cwd=cwd,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CommandFailed(f"timed out after {COMMAND_TIMEOUT:g} s") from None
    except OSError as error:
        raise CommandFailed(f"could not be started ({error})") from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or [""])[0]
        raise CommandFailed(
            f"exited with status {done.returncode}" + (f": {first}" if first else "")
        )
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError as error:
        raise CommandFailed(f"printed no JSON ({error})") from None
    if isinstance(answer, dict) and isinstance(answer.get("memories"), list):
        answer = answer["memories"]
    if not isinstance(answer, list):
        raise CommandFailed('printed JSON that is neither a list nor {"memories": [...]}')
    return [_proposal_from(item, index, commit) for index, item in enumerate(answer)]


# -- writing ---------------------------------------------------------------------------------


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


def _live_files(store: MemoryStore, files: Sequence[str]) -> tuple[str, ...]:
    """The files that still exist, in the store's normalized form."""
    root = store.repo_root
    kept: list[str] = []
    for raw in files:
        try:
            path = store.normalize_stored(raw)
        except BadInput:
            continue  # a name that cannot be a memory path (outside the repository)
        if root is None or (root / path).is_file():
            kept.append(path)
    return tuple(dict.fromkeys(kept))


def distill(
    store: MemoryStore,
    commits: Sequence[Commit],
    *,
    categories: Sequence[str],
    limit: int,
    command: Sequence[str] = (),
    dry_run: bool = False,
) -> DistillReport:
    """Propose memories from ``commits`` and write up to ``limit`` of them as pending.

    ``limit`` counts the auto-distilled memories already taken from these commits (whatever
    became of them), so running twice over one session never exceeds it.
    """
    report = DistillReport(commits=len(commits))
    already = distilled_commits(store)
    room = limit - len({i for c in commits for i in already.get(c.sha, [])})
    # content hash -> (id, status) of every memory, deleted ones too: a dropped proposal stays
    # dropped when the same commits are distilled again.
    known = {m.content_hash: (m.id, m.status) for m in store.list(status="all")}
    use_command = bool(command)
    cwd = store.repo_root or Path.cwd()

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
            skip(commit, f"over the cap of {limit} per session")
            continue
        changed = [f for f in commit.files if not is_tethers_own(f)]
        if len(changed) > SWEEP_FILES:
            skip(commit, f"changes {len(changed)} files (over {SWEEP_FILES})")
            continue
        files = _live_files(store, changed)
        if not files:
            skip(commit, "no file it changed is left to tie a memory to (gone, or Tether's own)")
            continue
        live = Commit(commit.sha, commit.author, commit.message, files)
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
            skip(commit, "no durable knowledge found in its message")
        for proposal in proposals:
            if proposal.category not in categories:
                skip(commit, f"category {proposal.category} is not allowed", proposal)
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
            if room <= 0:
                skip(commit, f"over the cap of {limit} per session", proposal)
                continue
            draft = draft.with_changes(status="pending", extra={DISTILLED_FROM_KEY: commit.sha})
            room -= 1
            if dry_run:
                known[draft.content_hash] = ("an earlier proposal", "not written")
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
    return report


def pending(stores: Iterable[MemoryStore]) -> list[tuple[Memory, str]]:
    """Every pending memory of the given stores, with its scope, newest first per store."""
    return [(m, store.scope) for store in stores for m in store.list(status="pending")]


def session_commits(store: MemoryStore, session_id: str) -> list[Commit]:
    """The commits made since session ``session_id`` started (by committer time)."""
    if store.repo_root is None:
        raise BadInput("distill reads a repository's commits; run it inside one")
    started = session_started(store.conn, session_id)
    return read_commits(store.repo_root, since_time=started)


# -- where auto-distill stopped reading ------------------------------------------------------

MARK_KEY: Final = "distill_last_commit"
"""Key of the index's ``lifecycle`` table holding the HEAD that distill last read up to."""


def read_mark(conn: sqlite3.Connection) -> str | None:
    """The commit distill last read up to (its range ended there), or None if it never ran."""
    row = conn.execute("SELECT value FROM lifecycle WHERE key = ?", (MARK_KEY,)).fetchone()
    return str(row[0]) if row else None


def claim(conn: sqlite3.Connection, seen: str | None, head: str) -> bool:
    """Move the mark from ``seen`` (what this run read; None: no mark yet) to ``head``; False
    when another run moved it in between, so two session starts never read one range twice."""
    with conn:
        if seen is None:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO lifecycle(key, value) VALUES(?, ?)", (MARK_KEY, head)
            )
        else:
            cursor = conn.execute(
                "UPDATE lifecycle SET value = ? WHERE key = ? AND value = ?",
                (head, MARK_KEY, seen),
            )
    return cursor.rowcount > 0


def release(conn: sqlite3.Connection, seen: str | None, head: str) -> None:
    """Undo :func:`claim` (the run failed before it read its range), unless moved since."""
    with conn:
        if seen is None:
            conn.execute("DELETE FROM lifecycle WHERE key = ? AND value = ?", (MARK_KEY, head))
        else:
            conn.execute(
                "UPDATE lifecycle SET value = ? WHERE key = ? AND value = ?",
                (seen, MARK_KEY, head),
            )


def head_commit(repo_root: Path) -> str | None:
    """The full id of HEAD, or None before the first commit."""
    from recall.genome.gitcmd import GitRunner, GitUnavailable

    try:
        status, out, _ = GitRunner(repo_root).run(
            ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], check=False
        )
    except GitUnavailable as error:
        raise BadInput(f"cannot read the commits of {repo_root}: {error}") from None
    return out.decode().strip() if status == 0 else None


def is_ancestor(repo_root: Path, older: str, newer: str) -> bool:
    """Whether commit ``older`` is in the history of ``newer`` (False when it is gone)."""
    from recall.genome.gitcmd import GitRunner, GitUnavailable

    try:
        status, _, _ = GitRunner(repo_root).run(
            ["merge-base", "--is-ancestor", older, newer], check=False
        )
    except GitUnavailable as error:
        raise BadInput(f"cannot read the commits of {repo_root}: {error}") from None
    return status == 0


@dataclass(frozen=True)
class Unread:
    """The commits distill has not read yet: after the mark, or (no usable mark) since a
    session started; ``mark`` is the mark as read, for :func:`claim`."""

    mark: str | None
    head: str
    commits: list[Commit]
    source: str | None
    """What the range is, for messages; None when there was neither a mark nor a session."""


def unread(store: MemoryStore, session: str | None) -> Unread | None:
    """The commits since distill last read, up to HEAD; None when there is no commit at all.

    Without a mark, or with one history no longer holds (a rebase, a reset, another branch),
    the range falls back to the commits since ``session`` started (none without a session).
    """
    root = store.repo_root
    if root is None:
        raise BadInput("distill reads a repository's commits; run it inside one")
    head = head_commit(root)
    if head is None:
        return None
    mark = read_mark(store.conn)
    if mark == head:
        return Unread(mark, head, [], f"commits after {mark[:10]}, the last read")
    if mark is not None and is_ancestor(root, mark, head):
        commits = read_commits(root, since_commit=mark)
        return Unread(mark, head, commits, f"commits after {mark[:10]}, the last read")
    if session is None:
        return Unread(mark, head, [], None)
    return Unread(mark, head, session_commits(store, session), f"commits of session {session}")


def auto_distill(
    store: MemoryStore, settings: EngineSettings, *, session: str, run_command: bool = True
) -> DistillReport | None:
    """The session-start entry point: distill the commits no run has read yet when the
    settings turn ``auto_distill`` on; None (nothing read, nothing written) when they do not.

    The range runs from the mark to HEAD, so every session's commits are read once whatever
    sessions (hook, editor, CLI) started in between; the first time, or after history was
    rewritten, from the start of the session before ``session``. The range is claimed before
    it is read, so session starts running side by side never propose one commit twice.

    ``run_command`` False (a caller that must answer quickly) leaves the range unread when a
    command is configured: the report's ``waiting`` says how many commits wait for a caller
    that may run it; the heuristic is not put in its place, as the user chose the command.
    """
    if not settings.auto_distill or store.scope != "project" or store.repo_root is None:
        return None
    found = unread(store, latest_session(store.conn, before=session))
    if found is None:
        return None
    if found.commits and settings.distill_command and not run_command:
        return DistillReport(waiting=len(found.commits))
    if not claim(store.conn, found.mark, found.head) or not found.commits:
        return DistillReport()  # nothing new, or another session start took it a moment ago
    try:
        return distill(
            store,
            found.commits,
            categories=settings.distill_categories,
            limit=settings.distill_max,
            command=settings.distill_command,
        )
    except BaseException:
        release(store.conn, found.mark, found.head)
        raise
