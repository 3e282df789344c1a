"""The commits distill reads: a session's, or those since a commit, with their messages and
changed files, and the git questions about them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recall.distill_words import MAX_COMMITS
from recall.errors import BadInput, NotFound


@dataclass(frozen=True)
class Commit:
    """One commit: its id, author, full message, the files it changed (repo-relative) and the
    ids of its parents (more than one: a merge)."""

    sha: str
    author: str
    message: str
    files: tuple[str, ...]
    parents: tuple[str, ...] = ()

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


_GIVE_SINCE = (
    "give the commit, branch or tag to read after (for example --since HEAD~5), or leave "
    "--since out to read what no distill has read"
)


def resolve_commit(repo_root: Path, ref: str) -> str:
    """The full id of commit ``ref``, or BadInput naming the argument."""
    if not ref.strip():
        raise BadInput(f"--since {ref!r} is empty; {_GIVE_SINCE}")
    if ref.startswith("-"):
        raise BadInput(f"--since {ref!r} is not a commit; {_GIVE_SINCE}")
    from recall.genome.gitcmd import GitRunner, GitUnavailable

    try:
        status, out, _ = GitRunner(repo_root).run(
            ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], check=False
        )
    except GitUnavailable as error:
        raise BadInput(f"cannot read the commits of {repo_root}: {error}") from None
    if status != 0:
        raise BadInput(f"--since {ref!r} is not a commit of this repository; {_GIVE_SINCE}")
    return out.decode().strip()


class Commits(list[Commit]):
    """Commits read, oldest first, and how many newer ones of the range were left unread
    (past :data:`~recall.distill_words.MAX_COMMITS`)."""

    def __init__(self, commits: Sequence[Commit] = (), unread: int = 0) -> None:
        """``commits`` read, ``unread`` more after them."""
        super().__init__(commits)
        self.unread = unread


def read_commits(
    repo_root: Path, *, since_commit: str | None = None, since_time: str | None = None
) -> Commits:
    """Non-merge commits after ``since_commit`` (exclusive) or since ``since_time``, oldest first.

    Only the oldest :data:`~recall.distill_words.MAX_COMMITS` are read, parents before their
    children, so that the last one read can mark where the next run reads on; of those, only
    the last one's ancestors are read (:func:`_closed_under`), as the next run reads every
    commit of the range the mark does not descend from. The answer says how many were left.
    Paths are relative to ``repo_root`` and files outside it are left out.
    """
    bounds = [f"--since={since_time}"] if since_time else []
    if since_commit is not None:  # an empty one too: resolve_commit refuses it
        bounds.append(f"^{resolve_commit(repo_root, since_commit)}")
    listing = ["rev-list", "--no-merges", "--topo-order", "--reverse", *bounds, "HEAD"]
    shas = _git(repo_root, listing).decode("ascii", "replace").split()
    if not shas:
        return Commits()
    chosen = shas[:MAX_COMMITS]
    if len(shas) > MAX_COMMITS:
        chosen = _closed_under(repo_root, chosen, bounds)
    args = [
        "log",
        "--no-walk=unsorted",
        "--relative",
        "--name-only",
        "-z",
        "--format=%x01%H%x1f%P%x1f%an%x1f%B%x02",
        *chosen,
    ]
    out = _git(repo_root, args).decode("utf-8", "surrogateescape")
    commits: list[Commit] = []
    for chunk in out.split("\x01")[1:]:
        head, _, names = chunk.partition("\x02")
        sha, parents, author, message = [*head.split("\x1f", 3), "", "", ""][:4]
        files = tuple(n.strip("\n") for n in names.split("\x00") if n.strip("\n"))
        commit = Commit(sha.strip(), author, message.strip(), files, tuple(parents.split()))
        commits.append(commit)
    return Commits(commits, len(shas) - len(chosen))


def _closed_under(repo_root: Path, oldest: list[str], bounds: list[str]) -> list[str]:
    """The commits of ``oldest`` (a range's first commits, parents first) that the last of
    them descends from: a commit of a side branch listed before it is left for the next run,
    which reads what the last one does not descend from and would read that commit again."""
    listing = ["rev-list", "--no-merges", *bounds, oldest[-1]]
    ancestors = set(_git(repo_root, listing).decode("ascii", "replace").split())
    return [sha for sha in oldest if sha in ancestors]


def unread_notice(commits: Commits, again: str) -> str | None:
    """What to say when ``commits`` left newer ones unread (None when none were): how many,
    and ``again``, how to read them."""
    if not commits.unread:
        return None
    return (
        f"{commits.unread} newer {'commit was' if commits.unread == 1 else 'commits were'} "
        f"left unread (at most {MAX_COMMITS} are read a run, oldest first, up to "
        f"{commits[-1].short}): {again}"
    )


@dataclass(frozen=True)
class Renamed:
    """What git says was renamed between a commit and HEAD: old name -> name now, and
    whether git left some renames unlooked-for (more files than its rename limit)."""

    names: dict[str, str]
    skipped: bool = False


RENAMES_SKIPPED = "rename detection was skipped"
"""What git's warning says when it gives up pairing renamed files (past its rename limit)."""


def renamed_since(repo_root: Path, sha: str) -> Renamed:
    """Each file git sees renamed between commit ``sha`` and HEAD (however many renames in
    between: the two trees are compared), relative to ``repo_root``, up to
    :data:`~recall.genome.limits.RENAME_LIMIT` files whatever the repository's git config
    says; past it the answer says git skipped some."""
    from recall.genome.gitcmd import GitRunner, GitUnavailable
    from recall.genome.limits import RENAME_LIMIT

    args = ["diff", "-z", "-M", f"-l{RENAME_LIMIT}", "--relative", "--name-status"]
    try:
        _, out, err = GitRunner(repo_root).run([*args, "--diff-filter=R", sha, "HEAD"])
    except GitUnavailable as error:
        raise BadInput(f"cannot read the commits of {repo_root}: {error}") from None
    fields = out.decode("utf-8", "surrogateescape").split("\x00")
    names = {
        fields[i + 1]: fields[i + 2]
        for i in range(0, len(fields) - 2, 3)
        if fields[i].startswith("R") and fields[i + 2]
    }
    return Renamed(names, RENAMES_SKIPPED in err)


def unlooked_for(name: str) -> str:
    """Why a file of a commit, gone under its name, is not tied by another: git gave up
    looking for renames (:class:`Renamed` ``skipped``)."""
    from recall.display import visible
    from recall.genome.limits import RENAME_LIMIT

    return (
        f"git did not look for where {visible(name)} went: more files were renamed since than "
        f"it pairs at once ({RENAME_LIMIT})"
    )


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
