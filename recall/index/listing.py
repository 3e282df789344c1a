"""The names of the memory folder kept in the index, so that confirming an unchanged folder
stats its files without listing it.

A folder's modification time changes whenever a file is added, removed or renamed in it, but
not when a file is rewritten in place: the listing spares the ``listdir`` (and the names' checks),
never the stat of each file that finds an edit. A listing is kept only once the folder's time
has settled (see :data:`recall.index.sync.RACY_WINDOW_NS`): a change within the same tick of a
coarse clock could otherwise leave the time as it was.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path
from typing import NamedTuple

from recall.index.schema import FOLDER_STATE_KEYS

LISTING_KEY = FOLDER_STATE_KEYS[1]
_SEP = b"\0"  # never part of a file name


class Stamp(NamedTuple):
    """What identifies a folder's entries: its device, inode and modification time."""

    device: int
    inode: int
    mtime_ns: int

    def encode(self) -> bytes:
        """The form kept at the head of the listing."""
        return f"{self.device}:{self.inode}:{self.mtime_ns}".encode("ascii")


def folder_stamp(path: Path) -> Stamp | None:
    """The stamp of the folder at ``path`` now; None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return Stamp(st.st_dev, st.st_ino, st.st_mtime_ns)


def settled(stamp: Stamp, window_ns: int) -> bool:
    """Whether the folder last changed long enough ago for its time to tell the next change."""
    return stamp.mtime_ns < time.time_ns() - window_ns


def kept_names(conn: sqlite3.Connection, stamp: Stamp | None) -> list[bytes] | None:
    """The names listed when the folder had ``stamp`` (as the file system spells them); None
    when no listing is kept for the folder as it is now."""
    if stamp is None:
        return None
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (LISTING_KEY,)).fetchone()
    if row is None or not isinstance(row[0], bytes):
        return None
    head, _, body = row[0].partition(_SEP)
    if head != stamp.encode():
        return None
    return body.split(_SEP) if body else []


def keep(conn: sqlite3.Connection, stamp: Stamp | None, names: list[bytes]) -> None:
    """Keep ``names`` as the listing of the folder at ``stamp`` (taken before it was listed,
    and settled), inside the caller's transaction; None forgets the listing."""
    if stamp is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (LISTING_KEY,))
        return
    value = _SEP.join([stamp.encode(), *names])
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (LISTING_KEY, value))


def keep_if_free(conn: sqlite3.Connection, stamp: Stamp, names: list[bytes]) -> None:
    """:func:`keep` from a read: never waits for another writer, and an index that cannot be
    written (read-only, full, busy) keeps nothing; the next open lists the folder again."""
    with contextlib.suppress(sqlite3.OperationalError):
        waited = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            keep(conn, stamp, names)
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(waited)}")
