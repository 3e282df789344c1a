"""Watching memory folders for writes by other processes (the CLI, an editor, a person): which
stores changed since the last look, for the long-running surfaces (the language server and the
MCP server) that must see them.

Writers rename finished files into the folder, which changes its mtime: one ``stat`` per store,
and a listing while that mtime is too recent to trust. The folder's change time is compared as
well: its mtime can be set back after a file was added (``touch -r``, ``rsync -a``, ``cp -a``,
``tar x``), which moves the change time, and that one cannot be set back.

A file rewritten in place (not renamed into the folder) changes neither time of the folder.
Where the folder can be watched with inotify (:mod:`recall.folder_events`: Linux, a local file
system) the watch reports such a write, and the look counts it. Elsewhere a look does not see
it: clients that send ``workspace/didChangeWatchedFiles`` report such edits (``force``); for
the others, the edit is seen when the folder next changes or the store next syncs (each recall
a CLI or hook runs does).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from recall.store import MemoryStore

RACY_NS = 2_000_000_000
"""A memory folder modified less than this long before it was looked at may be modified again
without its mtime moving (file times come from a coarse clock: a timer tick on Linux, two
seconds on FAT), so its files are listed as well until its mtime is older than this."""


@dataclass(frozen=True)
class FolderLook:
    """What one look at a memory folder saw: its mtime and change time, and its files while
    either is recent."""

    mtime: int
    exists: bool
    ctime: int = 0
    listing: frozenset[tuple[str, int, int, int]] | None = None
    racy: bool = False
    """Whether the mtime was too recent to trust when this look was taken."""

    def differs(self, other: FolderLook) -> bool:
        """Whether the folder changed between this look and ``other`` (listings compared
        only when both looks took one)."""
        if (self.exists, self.mtime, self.ctime) != (other.exists, other.mtime, other.ctime):
            return True
        both = self.listing is not None and other.listing is not None
        return both and self.listing != other.listing


def look(folder: Path, before: FolderLook | None = None) -> FolderLook:
    """Look at a memory folder: one stat, plus a listing while its mtime or change time is too
    recent to trust, and once more when they have just stopped being so without moving (a
    write in that window may have left them where they were). After that the times alone
    tell: a write moves them past a time the clock has left behind."""
    try:
        st = os.stat(folder)
    except OSError:
        return FolderLook(0, False)
    mtime, ctime = st.st_mtime_ns, st.st_ctime_ns
    racy = time.time_ns() - max(mtime, ctime) < RACY_NS
    same = before is not None and (before.mtime, before.ctime) == (mtime, ctime)
    if racy or (same and before is not None and before.racy):
        return FolderLook(mtime, True, ctime, _listing(folder), racy)
    return FolderLook(mtime, True, ctime)


def _listing(folder: Path) -> frozenset[tuple[str, int, int, int]]:
    """Each memory file's name, inode, mtime and size (a rename gives a new inode)."""
    found = set()
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(".md"):
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    found.add((entry.name, info.st_ino, info.st_mtime_ns, info.st_size))
    except OSError:
        pass
    return frozenset(found)


@dataclass(frozen=True)
class FolderChange:
    """A store whose memory folder changed; ``appeared`` when the folder was created since the
    last look (the store's in-memory stand-in should give way to the real index), ``vanished``
    when it was taken away since (a branch switch, a clean: an index file left behind no longer
    holds what the folder does)."""

    store: MemoryStore
    appeared: bool
    vanished: bool = False


class FolderWatch:
    """The last look at each store's memory folder, and what changed since."""

    def __init__(self, stores: Iterable[MemoryStore] = ()) -> None:
        from recall.folder_events import FolderEvents

        self._seen: dict[Path, FolderLook] = {}
        self.listings = 0
        """How many of this watch's looks listed a folder's files (the part that costs a stat
        per memory file; a folder whose times are trusted needs none)."""
        self._events = FolderEvents.create()
        self._generations: dict[Path, int | None] = {}
        """Each folder's watch generation at the last look (None: not watched)."""
        for store in stores:
            folder = store.location.memories_dir
            self._generations[folder] = self._generation(folder)
            self._seen[folder] = self._look(folder)

    def _look(self, folder: Path, before: FolderLook | None = None) -> FolderLook:
        """:func:`look`, counted in :attr:`listings` when it lists."""
        now = look(folder, before)
        if now.listing is not None:
            self.listings += 1
        return now

    def _generation(self, folder: Path) -> int | None:
        return self._events.generation(folder) if self._events is not None else None

    def moved(self, stores: Iterable[MemoryStore]) -> bool:
        """Whether :meth:`changes` would report any of ``stores`` now (a folder never looked
        at counts, so that its first look is taken), without using the change up: the same stat
        per folder (and the watch's queue read), for a caller on a timer that goes on to the
        full look only when this says so.

        A look that finds nothing new is kept when the last one was taken while the folder's
        times were too recent to trust: its listing equals the last one, so keeping it hides
        nothing from :meth:`changes`, and once the times have settled the following looks are
        a stat again, not a listing on every tick until a message comes."""
        for store in stores:
            folder = store.location.memories_dir
            before = self._seen.get(folder)
            if before is None:
                return True
            generation = self._generation(folder)
            if generation != self._generations.get(folder, generation):
                return True
            now = self._look(folder, before)
            if now.differs(before):
                return True
            if before.racy:
                self._seen[folder] = now
        return False

    def changes(self, stores: Iterable[MemoryStore], *, force: bool = False) -> list[FolderChange]:
        """The stores whose folder changed since the last look (every store with ``force``, a
        watched-file event that may be an in-place edit). A folder never looked at before is
        only looked at: its store syncs when it opens."""
        changed: list[FolderChange] = []
        for store in stores:
            folder = store.location.memories_dir
            generation = self._generation(folder)  # before the look: a write between counts
            written = generation != self._generations.get(folder, generation)
            self._generations[folder] = generation
            before = self._seen.get(folder)
            now = self._look(folder, before)
            self._seen[folder] = now
            if before is None or (not now.differs(before) and not force and not written):
                continue
            changed.append(
                FolderChange(
                    store,
                    appeared=not before.exists and now.exists,
                    vanished=before.exists and not now.exists,
                )
            )
        return changed
