"""Auto-distill at a session start: the commits since the last run stopped (a mark kept in the
index, claimed so that sessions started side by side never read the same commits twice)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from recall.errors import BadInput
from recall.store import MemoryStore

if TYPE_CHECKING:
    from recall.settings import EngineSettings
from recall.distill.commits import (
    Commits,
    head_commit,
    is_ancestor,
    latest_session,
    read_commits,
    unread_notice,
)
from recall.distill.write import DistillReport, distill, session_commits

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


def mark_read(store: MemoryStore, since: str, head: str) -> bool:
    """After a run read the commits after commit ``since`` up to ``head`` (``tether distill
    --since``), move the mark to ``head`` when that leaves unread no commit a plain run would
    have read: the mark is at or after ``since``, or there is no range a plain run could read
    (no mark history still holds, and no session recorded). False when the mark stays."""
    root = store.repo_root
    if root is None or not store.exists:  # no index to keep a mark in
        return False
    mark = read_mark(store.conn)
    if mark is not None and is_ancestor(root, mark, head):
        if not is_ancestor(root, since, mark):  # the commits between the mark and since
            return False
    elif latest_session(store.conn) is not None:  # a plain run reads that session's commits
        return False
    return claim(store.conn, mark, head)


@dataclass(frozen=True)
class Unread:
    """The commits distill has not read yet: after the mark, or (no usable mark) since a
    session started; ``mark`` is the mark as read, for :func:`claim`."""

    mark: str | None
    head: str
    """Where the mark moves once they are read: HEAD, or the last commit read when more than a
    run reads were left for the next."""
    commits: Commits
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
        return Unread(mark, head, Commits(), f"commits after {mark[:10]}, the last read")
    if mark is not None and is_ancestor(root, mark, head):
        commits = read_commits(root, since_commit=mark)
        return Unread(
            mark, read_up_to(commits, head), commits, f"commits after {mark[:10]}, the last read"
        )
    if session is None:
        return Unread(mark, head, Commits(), None)
    commits = session_commits(store, session)
    return Unread(mark, read_up_to(commits, head), commits, f"commits of session {session}")


def read_up_to(commits: Commits, head: str) -> str:
    """The commit a run that read ``commits`` (a range ending at ``head``) has read up to:
    ``head``, or the last commit read when newer ones were left unread."""
    return commits[-1].sha if commits.unread else head


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
        report = distill(
            store,
            found.commits,
            categories=settings.distill_categories,
            limit=settings.distill_max,
            command=settings.distill_command,
        )
    except BaseException:
        release(store.conn, found.mark, found.head)
        raise
    left = unread_notice(found.commits, "the next session start or `tether distill` reads them")
    report.notices.extend([left] if left else [])
    return report
