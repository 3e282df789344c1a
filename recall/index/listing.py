"""The names of the memory folder kept in the index, so that confirming an unchanged folder
stats its files without listing it.

A folder's modification time changes whenever a file is added, removed or renamed in it, but
not when a file is rewritten in place: the listing spares the ``listdir`` (and the names' checks),
never the stat of each file that finds an edit. A listing is kept only once the folder's times
have settled (see :data:`recall.index.sync.RACY_WINDOW_NS`): a change within the same tick of a
coarse clock could otherwise leave them as they were. Settled is judged by the file system's
own time (that of the index's write), not by this machine's clock.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from recall.index.bookkeeping import waiting_at_most
from recall.index.schema import FOLDER_STATE_KEYS

LISTING_KEY = FOLDER_STATE_KEYS[1]
_SEP = b"\0"  # never part of a file name
_TENTATIVE = b"?"  # heads a listing not yet confirmed by the file system's time of its write


class Stamp(NamedTuple):
    """What identifies a folder's entries: its device, inode, modification and change times.

    The change time is there because the modification time can be set back (``touch -r``,
    ``rsync -a``, ``cp -a``, ``tar x``) after a file was added; setting it moves the change
    time, which nothing can set back."""

    device: int
    inode: int
    mtime_ns: int
    ctime_ns: int

    def encode(self) -> bytes:
        """The form kept at the head of the listing."""
        return f"{self.device}:{self.inode}:{self.mtime_ns}:{self.ctime_ns}".encode("ascii")


def folder_stamp(path: Path) -> Stamp | None:
    """The stamp of the folder at ``path`` now; None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return Stamp(st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


def settled(stamp: Stamp, window_ns: int, now_ns: int) -> bool:
    """Whether the folder last changed (by either of its times) more than ``window_ns``
    before ``now_ns``: long enough ago for its times to tell the next change."""
    return max(stamp.mtime_ns, stamp.ctime_ns) < now_ns - window_ns


def written_at(conn: sqlite3.Connection) -> int | None:
    """The time the index's own file system gave its last write (the newer of the index file
    and its write-ahead log); None when the index has no file. Compared with the folder's
    times, it needs no agreement between this machine's clock and a file server's."""
    path = getattr(conn, "index_path", None)
    if path is None:
        return None
    times = []
    for name in (f"{path}-wal", str(path)):
        with contextlib.suppress(OSError):
            times.append(os.stat(name).st_mtime_ns)
    return max(times, default=None)


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


def listed_folder(conn: sqlite3.Connection) -> tuple[int, int] | None:
    """(device, inode) of the folder the kept listing was taken of, tentative or not; None
    when no listing is kept or it cannot be read. A folder a clone or an unpacking creates has
    an inode of its own, so an index that names the memory folder beside it was made there."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (LISTING_KEY,)).fetchone()
    if row is None or not isinstance(row[0], bytes):
        return None
    head = row[0].partition(_SEP)[0].removeprefix(_TENTATIVE)
    device, _, rest = head.partition(b":")
    inode = rest.partition(b":")[0]
    if not (device.isdigit() and inode.isdigit()):
        return None
    return int(device), int(inode)


def keep(conn: sqlite3.Connection, stamp: Stamp | None, names: list[bytes]) -> None:
    """Keep ``names`` as the listing of the folder at ``stamp`` (taken before it was listed),
    inside the caller's transaction; None forgets the listing. The listing is kept as
    tentative, which :func:`kept_names` does not trust: the caller then has :func:`confirm`
    check the stamp against the time of the write, which a failed confirmation (a busy index)
    leaves tentative."""
    if stamp is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (LISTING_KEY,))
        return
    value = _SEP.join([_TENTATIVE + stamp.encode(), *names])
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (LISTING_KEY, value))


def worth_keeping(stamp: Stamp | None, window_ns: int) -> bool:
    """Whether a listing taken at ``stamp`` may be kept: settled by this machine's clock (a
    clock behind the file system's is caught by :func:`confirm`)."""
    return stamp is not None and settled(stamp, window_ns, time.time_ns())


def confirm(conn: sqlite3.Connection, stamp: Stamp, window_ns: int) -> None:
    """Trust the listing just kept at ``stamp`` if the folder had settled by the time the file
    system gave that write (a file server's clock may be ahead of this machine's), else forget
    it. Never waits: a busy index leaves it tentative, and the next open lists the folder."""
    now = written_at(conn)
    if now is None or not settled(stamp, window_ns, now):
        _write_if_free(conn, "DELETE FROM meta WHERE key = ?", (LISTING_KEY,))
        return
    head = _TENTATIVE + stamp.encode()
    _write_if_free(
        conn,
        "UPDATE meta SET value = substr(value, ?) WHERE key = ? AND substr(value, 1, ?) = ?",
        (len(_TENTATIVE) + 1, LISTING_KEY, len(head), head),
    )


def keep_if_free(conn: sqlite3.Connection, stamp: Stamp | None, names: list[bytes]) -> None:
    """:func:`keep` from a read: never waits for another writer, and an index that cannot be
    written (read-only, full, busy) keeps nothing; the next open lists the folder again.
    It must not run while another thread uses the same connection (see
    :func:`_write_if_free`)."""
    _free(conn, lambda: keep(conn, stamp, names))


def _write_if_free(conn: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> None:
    """Run one write statement unless the index is busy, read-only or full."""
    _free(conn, lambda: conn.execute(sql, params))


def _free(conn: sqlite3.Connection, write: Callable[[], object]) -> None:
    """Run ``write`` with the connection's busy timeout at zero, then put the timeout back; an
    operational error (busy, read-only, full) writes nothing. The timeout is the
    connection's, so no other thread may use the connection meanwhile."""
    with contextlib.suppress(sqlite3.OperationalError), waiting_at_most(conn, 0):
        write()
