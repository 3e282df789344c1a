"""The names a file went by in git's history, read from the renames the index's genome keeps.

A memory names files as they were called when it was written; after ``git mv`` it still
names the old path until ``tether repoint`` rewrites it. Recall's file channel follows renames
(a memory naming an earlier name of a touched file counts as naming it), and so do the edit
hooks' guards and warnings, ``tether check`` and ``tether list --file``, all through
:func:`earlier_names`. This module imports nothing of the genome's package: an edit hook,
which must start in a few tens of milliseconds, reads the rename table directly.
"""

from __future__ import annotations

import bisect
import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from operator import itemgetter

Events = Callable[[str], list[tuple[int, str]]]
"""The rename events of one name, in commit order: (commit number, the other name)."""


@contextlib.contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """Every statement of the block reads one state of the database: a read transaction
    around them (in WAL mode a refresh another connection commits meanwhile stays unseen
    until it ends), or the caller's own transaction when one is open."""
    if conn.in_transaction:
        yield
        return
    try:  # begun inside: an interrupt between BEGIN and the block still ends it
        conn.execute("BEGIN")
        yield
    finally:
        if conn.in_transaction:  # nothing was written: ending it only lets the snapshot go
            conn.execute("COMMIT")


def rename_events(conn: sqlite3.Connection, column: str, name: str) -> list[tuple[int, str]]:
    """The renames whose ``column`` ("old" or "new") is ``name``: (commit number, the other
    name), in commit order."""
    other = {"old": "new", "new": "old"}[column]
    cur = conn.cursor()
    cur.row_factory = None
    return cur.execute(
        f"SELECT seq, {other} FROM genome_renames WHERE {column} = ? ORDER BY seq, rowid",
        (name,),
    ).fetchall()


def follow_forward(path: str, left: Events) -> str | None:
    """The current name of the file most recently renamed away from ``path`` (``left``: the
    events by the name left); None when ``path`` was never renamed away or the chain comes
    back to it. A name can be left, reused and left again, so each step only follows events
    later than the step before it."""
    events = left(path)
    if not events:
        return None
    seq, current = events[-1]
    while True:
        later = left(current)
        index = bisect.bisect_right(later, seq, key=itemgetter(0))
        if index >= len(later):
            break
        seq, current = later[index]
    return None if current == path else current


def follow_backward(path: str, taken: Events) -> list[str]:
    """The earlier names of the file that was last renamed to ``path``, newest first
    (``taken``: the events by the name taken); each step only follows earlier events."""
    events = taken(path)
    if not events:
        return []
    seq, current = events[-1]
    found = [current]
    while True:
        earlier = taken(current)
        index = bisect.bisect_left(earlier, seq, key=itemgetter(0)) - 1
        if index < 0:
            break
        seq, current = earlier[index]
        found.append(current)
    return [name for name in dict.fromkeys(found) if name != path]


def earlier_names(conn: sqlite3.Connection, path: str) -> list[str]:
    """The earlier names of the file now at ``path``, newest first, as the genome last read
    git's history (``tether index``, a recall or a prompt hook bring it up to date); none when
    the index holds no history (never indexed, or built by another version: a guard found
    through a stale rename asks once too often, never too seldom)."""
    try:
        with read_snapshot(conn):  # one state of the table: a refresh renumbers commits
            return follow_backward(path, lambda name: rename_events(conn, "new", name))
    except sqlite3.OperationalError:  # no genome tables (yet)
        return []


def later_name(conn: sqlite3.Connection, path: str) -> str | None:
    """The name the file last renamed away from ``path`` has now, following every later
    rename (what ``tether repoint`` would write, when that name still exists); None when the
    index knows no such rename."""
    try:
        with read_snapshot(conn):
            return follow_forward(path, lambda name: rename_events(conn, "old", name))
    except sqlite3.OperationalError:  # no genome tables (yet)
        return None


def names_of(conn: sqlite3.Connection, path: str) -> tuple[str, ...]:
    """``path`` and its earlier names (:func:`earlier_names`): every name a memory may give the
    file by."""
    return (path, *earlier_names(conn, path))
