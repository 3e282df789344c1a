"""Bringing the index in line with the memory files: new, changed and removed files."""

from __future__ import annotations

import contextlib
import sqlite3
import sys
import time
import zlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from recall.index import early_look, listing, rows
from recall.index.db import rollback
from recall.index.deferred_check import DeferredCheck
from recall.index.first_added import FirstAdded
from recall.index.folder_sums import folder_sums
from recall.index.schema import FOLDER_STATE_KEYS
from recall.index.sync_file import RECHECK, PathNormalizer, sync_one
from recall.memfiles import FileStat, MemoryFolder

_FS_ENCODING = sys.getfilesystemencoding()
_FS_ERRORS = sys.getfilesystemencodeerrors()
"""How file names are spelt on disk (``os.fsencode``): the bytes the names' checksum covers."""


class FolderEvents(Protocol):
    """What a long-lived process may know of a memory folder between two syncs (the warm
    engine's :class:`recall.folder_events.FolderEvents`)."""

    def begin(self, folder: Path) -> Any | None:
        """A look at the folder before it is checked; None when nothing is known of it."""

    def quiet(self, look: Any, stored: Fingerprint) -> bool:
        """Whether nothing changed in it since ``stored`` was last confirmed."""

    def confirm(self, look: Any, fingerprint: Fingerprint) -> None:
        """A check begun at ``look`` found the folder as ``fingerprint`` says."""


_EVENTS: list[FolderEvents | None] = [None]


def use_folder_events(events: FolderEvents | None) -> None:
    """Let every later sync in this process skip its check of a folder ``events`` vouches for
    (the warm engine's watches); None checks every folder's files again, as by default."""
    _EVENTS[0] = events


@dataclass(frozen=True)
class _Seen:
    """This sync's look at its folder through the process's :class:`FolderEvents`."""

    events: FolderEvents
    look: Any

    @classmethod
    def of(cls, folder: Path) -> _Seen | None:
        events = _EVENTS[0]
        look = events.begin(folder) if events is not None else None
        return None if events is None or look is None else cls(events, look)

    def quiet(self, stored: Fingerprint) -> bool:
        return self.events.quiet(self.look, stored)

    def confirm(self, fingerprint: Fingerprint) -> None:
        self.events.confirm(self.look, fingerprint)


@dataclass
class SyncReport:
    """What one sync changed in the index."""

    added: int = 0
    changed: int = 0
    removed: int = 0
    problems: list[str] = field(default_factory=list)
    pending: DeferredCheck | None = None
    """The check of the folder, when it was left running in a child (``sync(defer=True)``):
    the index is as last synced until its verdict says the folder is as indexed."""

    @property
    def touched(self) -> bool:
        """Whether the sync changed anything."""
        return bool(self.added or self.changed or self.removed or self.problems)


def _known(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    known = {
        row[0]: (row[1], row[2])
        for row in conn.execute("SELECT name, mtime_ns, size FROM memories")
    }
    known.update(
        (row[0], (row[1], row[2]))
        for row in conn.execute("SELECT name, mtime_ns, size FROM problems")
    )
    return known


@dataclass(frozen=True)
class Fingerprint:
    """Order-free summary of a folder: counts and sums of names, mtimes and sizes.

    Any edit changes an mtime (nanoseconds) and any rename a name checksum, so equal
    fingerprints mean the folder is as indexed.
    """

    count: int = 0
    mtimes: int = 0
    sizes: int = 0
    names: int = 0

    @classmethod
    def of(cls, stats: list[FileStat]) -> Fingerprint:
        """The fingerprint of a scan."""
        if not stats:
            return cls()
        names, mtimes, sizes = zip(*stats, strict=True)
        crc = zlib.crc32
        return cls(
            len(stats),
            sum(mtimes),
            sum(sizes),
            sum([crc(name.encode(_FS_ENCODING, _FS_ERRORS)) for name in names]),
        )

    @classmethod
    def of_folder(cls, folder: MemoryFolder) -> tuple[Fingerprint, list[bytes]]:
        """The fingerprint of the folder as it is now, equal to :meth:`of` its scan, in one
        pass that keeps nothing per file but its name (as the file system spells it)."""
        totals, names = folder_sums(folder.path)
        return cls(*totals), names

    def encode(self) -> str:
        """Text form kept in the ``meta`` table."""
        return f"{self.count}:{self.mtimes}:{self.sizes}:{self.names}"

    @classmethod
    def decode(cls, text: str | None) -> Fingerprint | None:
        """Parse :meth:`encode` output; None when absent or unreadable."""
        try:
            count, mtimes, sizes, names = (int(part) for part in (text or "").split(":"))
        except ValueError:
            return None
        return cls(count, mtimes, sizes, names)


FINGERPRINT_KEY = FOLDER_STATE_KEYS[0]


def stored_fingerprint(conn: sqlite3.Connection) -> Fingerprint | None:
    """The fingerprint of the folder as the index last saw it."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (FINGERPRINT_KEY,)).fetchone()
    return Fingerprint.decode(row[0] if row else None)


def store_fingerprint(conn: sqlite3.Connection, value: Fingerprint | None) -> None:
    """Record the folder's fingerprint (inside the transaction that indexed it); None forgets
    it, so the next sync compares every file."""
    if value is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (FINGERPRINT_KEY,))
        return
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (FINGERPRINT_KEY, value.encode())
    )


def add_to_fingerprint(conn: sqlite3.Connection, stats: list[FileStat]) -> None:
    """Count files this process has just added to the folder (a bulk import's, written whole
    under the writers' lock) into the stored fingerprint, inside the transaction that indexes
    them: the sums are order-free, so the folder as indexed before plus these files is the
    folder as indexed now, and the next sync confirms it without reading the index's rows.
    Left unchanged, the fingerprint of the folder before would match it again once those
    files were taken away (an import undone by hand, a ``git clean``), and the index would
    go on serving memories whose files are gone. Nothing is stored when none was."""
    stored = stored_fingerprint(conn)
    if stored is None or not stats:
        return
    added = Fingerprint.of(stats)
    store_fingerprint(
        conn,
        Fingerprint(
            stored.count + added.count,
            stored.mtimes + added.mtimes,
            stored.sizes + added.sizes,
            stored.names + added.names,
        ),
    )


def sync(
    conn: sqlite3.Connection,
    folder: MemoryFolder,
    normalize: PathNormalizer,
    lock: Callable[[], AbstractContextManager[object]] | None = None,
    *,
    defer: bool = False,
) -> SyncReport:
    """Update the index from the folder; cheap when nothing changed (stats only, no reads).

    The fingerprint of the folder as last indexed is kept in ``meta``, so confirming that
    nothing changed costs one stat per file (an edit in place changes only the file's own
    modification time, not the folder's) and one row. When something changed, the folder is
    re-scanned under the writers' ``lock`` so a sync never sees a file whose writer has not
    indexed it yet.

    With ``defer``, the stats that confirm a settled, listed folder run in a child and the
    report's ``pending`` holds their verdict to come (:mod:`recall.index.deferred_check`);
    the caller must ask for it before anything it read is used.
    """
    report = SyncReport()
    stored = stored_fingerprint(conn)
    seen = _Seen.of(folder.path)
    if stored is not None and seen is not None and seen.quiet(stored):
        return report
    check = _early_check(folder, stored)  # only one-shot commands look early: none has seen
    if check is not None and (defer or check.as_indexed()):
        report.pending = check if defer else None
        return report
    if stored is not None and defer and seen is None:
        names = listing.kept_names(conn, listing.folder_stamp(folder.path))
        if names is not None:
            expected = (stored.count, stored.mtimes, stored.sizes)
            report.pending = DeferredCheck.start(folder, names, expected)
            if report.pending is not None:
                return report
    if stored is not None and _unchanged(conn, folder, stored):
        if seen is not None:
            seen.confirm(stored)
        return report
    with lock() if lock is not None else contextlib.nullcontext():
        stamp = listing.folder_stamp(folder.path)  # before the listing it stands for
        stats = folder.scan()
        if not stats and not folder.path.is_dir():
            # taken away (a branch switch, a clean): the index keeps what the folder held,
            # for when it comes back, instead of being emptied
            return report
        current = Fingerprint.of(stats)
        conn.execute("BEGIN IMMEDIATE")
        try:
            known = _known(conn)
            on_disk = {s.name for s in stats}
            for name in known:
                if name not in on_disk:
                    rows.delete_by_name(conn, name)
                    report.removed += 1
            reread = [s for s in stats if known.get(s.name) != (s.mtime_ns, s.size)]
            added = FirstAdded(folder.path)  # git asked once, if a file needs it
            for stat in sorted(reread, key=lambda s: s.name):
                done = sync_one(conn, folder, stat, normalize, report.problems, added)
                if done:
                    report.changed += stat.name in known
                    report.added += stat.name not in known
            if not folder.path.is_dir():
                # taken away since it was listed (while this waited for the index, or read):
                # a file it could not read is not gone from the store, so none of this is kept
                rollback(conn)
                return SyncReport()
            # Only files seen changing are suspect; the writers' own files are trusted.
            racy = mark_racy(conn, reread)
            store_fingerprint(conn, None if racy else current)
            kept = stamp if listing.worth_keeping(stamp, RACY_WINDOW_NS) else None
            names = [s.name.encode(_FS_ENCODING, _FS_ERRORS) for s in stats]
            listing.keep(conn, kept, names)
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)  # a full disk rolls back on its own
            raise
        if kept is not None:
            listing.confirm(conn, kept, RACY_WINDOW_NS)
    if seen is not None and not racy:
        seen.confirm(current)
    return report


def _early_check(folder: MemoryFolder, stored: Fingerprint | None) -> DeferredCheck | None:
    """The look at the folder begun as the process started (:mod:`recall.index.early_look`),
    as a check against ``stored`` and the folder's stamp now; None when there is none, or (the
    look stopped) nothing to compare it with, or a folder changed too recently for its stamp to
    tell a later change."""
    early = early_look.take(folder.path)
    if early is None:
        return None
    stamp = listing.folder_stamp(folder.path)
    if (
        stored is None
        or stamp is None
        or not listing.settled(stamp, RACY_WINDOW_NS, time.time_ns())
    ):
        early.stop()
        return None
    sums = (stored.count, stored.mtimes, stored.sizes, stored.names)
    return DeferredCheck(early, early_look.expected(stamp, sums), early_look.combined)


def _unchanged(conn: sqlite3.Connection, folder: MemoryFolder, stored: Fingerprint) -> bool:
    """Whether the folder is as ``stored`` says: by the kept listing when the folder's entries
    are as listed then (a stat of each file), else by listing it (kept for the next time)."""
    stamp = listing.folder_stamp(folder.path)
    names = listing.kept_names(conn, stamp)
    if names is not None:
        totals = folder.stat_listed(names)
        return totals is not None and Fingerprint(*totals, stored.names) == stored
    current, names = Fingerprint.of_folder(folder)
    if current != stored:
        return False
    if stamp is not None and listing.worth_keeping(stamp, RACY_WINDOW_NS):
        listing.keep_if_free(conn, stamp, names)
        listing.confirm(conn, stamp, RACY_WINDOW_NS)
    return True


# A file modified this recently may be edited again within the same timestamp tick without
# its mtime or size changing (coarse clocks: 2 s on FAT, 1 s on HFS+ and SMB). Such files
# are re-read on the next sync until they age past this window (git's "racily clean" rule).
RACY_WINDOW_NS = 3_000_000_000


def mark_racy(conn: sqlite3.Connection, stats: list[FileStat]) -> bool:
    """Flag files too recent to trust by stat alone; return whether any were flagged."""
    horizon = time.time_ns() - RACY_WINDOW_NS
    racy = [(RECHECK, s.name) for s in stats if s.mtime_ns >= horizon]
    if racy:
        conn.executemany("UPDATE memories SET mtime_ns = ? WHERE name = ?", racy)
        conn.executemany("UPDATE problems SET mtime_ns = ? WHERE name = ?", racy)
    return bool(racy)
