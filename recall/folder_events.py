"""Memory folders watched with inotify: whether any file in one may have changed since a given
moment, for the long-lived processes (the warm engine, the language server, the MCP server).

A one-shot process confirms its store is as indexed by one ``lstat`` per memory file (30,000
of them at 30k memories: most of a warm request's time), and a long-lived one looking only at
the folder's own times misses a file rewritten in place. A watch on the folder reports every
entry created, deleted, renamed, written or touched in it. Two uses:

* the warm engine's syncs (:meth:`FolderEvents.begin`, :meth:`~FolderEvents.quiet`,
  :meth:`~FolderEvents.confirm`): a folder from which nothing was reported since a check that
  found it as indexed is as indexed now, so the request skips the check. Each watch is added
  before the check it stands behind, so a write during that check is reported and makes the
  next request check again; and a watch only vouches for the index fingerprint it confirmed,
  so another process that rebuilt or changed the index makes the next request check;
* the servers' look between messages (:meth:`FolderEvents.generation`, used by
  :mod:`recall.folder_watch`): a folder whose generation moved was written to, in place too.

What a watch cannot see, and how each is covered:

* a file system whose writes may come from elsewhere (a network or user-space mount): no watch
  is kept there (:data:`LOCAL_FILESYSTEMS`), and the files are checked as without inotify;
* a write through another name of the same file (a hard link from outside the folder) or
  through a memory map: the engine sees it at its next full check, at most
  :data:`FULL_CHECK_EVERY_S` later;
* an overflowing event queue, a folder removed, moved or replaced: the folder counts as changed.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

LOCAL_FILESYSTEMS: Final = frozenset(
    {
        "ext2",
        "ext3",
        "ext4",
        "xfs",
        "btrfs",
        "bcachefs",
        "f2fs",
        "zfs",
        "jfs",
        "reiserfs",
        "tmpfs",
        "ramfs",
        "overlay",
    }
)
"""File systems whose every write goes through this machine's kernel, so a watch sees it; on
any other (nfs, cifs, fuse, 9p, virtiofs...) another machine or a user-space server can change
a file without an event, and the engine checks the files on every request as before."""

FULL_CHECK_EVERY_S: Final = 60.0
"""A quiet folder is checked in full once this long after its last full check anyway: a write
through a hard link from outside the folder or a memory map raises no event, and is then seen
within a minute, for the cost of one full check a minute instead of one per request."""

_MASK: Final = (
    0x002  # IN_MODIFY: a file written in place
    | 0x004  # IN_ATTRIB: touched, mode or owner changed, link count changed
    | 0x008  # IN_CLOSE_WRITE
    | 0x040  # IN_MOVED_FROM
    | 0x080  # IN_MOVED_TO: the writers' atomic renames
    | 0x100  # IN_CREATE
    | 0x200  # IN_DELETE
    | 0x400  # IN_DELETE_SELF
    | 0x800  # IN_MOVE_SELF
    | 0x01000000  # IN_ONLYDIR
    | 0x02000000  # IN_DONT_FOLLOW
)
_Q_OVERFLOW: Final = 0x4000
_WATCH_ENDED: Final = 0x400 | 0x800 | 0x2000 | 0x8000  # deleted, moved, unmounted, dropped


@dataclass
class _Watched:
    """One watched folder: its watch, which folder it is, the serial of the last event that
    named it (or of its watch's start), and the fingerprint last confirmed with the generation
    it was confirmed at."""

    wd: int
    ident: tuple[int, int]
    generation: int
    ended: bool = False
    confirmed: tuple[Any, int, float] | None = None


@dataclass(frozen=True)
class Look:
    """One request's look at a watched folder, taken before it checks or skips the check."""

    key: str
    generation: int
    watched: _Watched


class FolderEvents:
    """inotify watches on memory folders, one instance per process or server; see the module."""

    def __init__(self, inotify: Any) -> None:
        self._inotify = inotify
        self._folders: dict[str, _Watched] = {}
        self._keys: dict[int, set[str]] = {}
        """The folders each watch stands for: two paths to one folder share the kernel's watch."""
        self._unwatchable: dict[str, tuple[int, int]] = {}
        """Folders found not watchable, by the identity they had then (another folder at the
        same path is asked about again)."""
        self._serial = 0
        """Counts watches started and events taken: a generation is never given twice, so a
        folder watched anew never looks as it was under its old watch."""
        self.skipped = 0
        """Checks skipped because the folder was quiet (shown by ``tether warm --status``)."""
        self.looks = 0
        """Looks taken at a watched folder, one per sync: those not skipped checked in full."""

    @classmethod
    def create(cls) -> FolderEvents | None:
        """A watcher, or None where inotify is not to be had (another system, no instances
        left): the files are then checked as without it."""
        try:
            from inotify_simple import INotify

            return cls(INotify(nonblocking=True))
        except (ImportError, OSError, AttributeError):
            return None

    def close(self) -> None:
        """Drop every watch."""
        self._inotify.close()
        self._folders.clear()
        self._keys.clear()

    def begin(self, folder: Path) -> Look | None:
        """Read what happened since the last look and look at ``folder``, watching it if it is
        not yet watched; None when it cannot be watched (missing, remote, out of watches)."""
        self._drain()
        key = os.fspath(folder)
        watched = self._watched(key)
        if watched is None:
            return None
        self.looks += 1
        return Look(key, watched.generation, watched)

    def generation(self, folder: Path) -> int | None:
        """A number that moves whenever anything in ``folder`` may have changed (its first
        call starts the watch); None when it cannot be watched, so its changes are unknown."""
        self._drain()
        watched = self._watched(os.fspath(folder))
        return None if watched is None else watched.generation

    def _watched(self, key: str) -> _Watched | None:
        try:
            st = os.stat(key)
        except OSError:
            return None
        ident = (st.st_dev, st.st_ino)
        watched = self._folders.get(key)
        if watched is None or watched.ended or watched.ident != ident:
            if self._unwatchable.get(key) == ident:  # asked before: no mount table read again
                return None
            watched = self._watch(key, ident)
            if watched is None:
                self._unwatchable[key] = ident
        return watched

    def quiet(self, look: Look, stored: Any) -> bool:
        """Whether the folder is as it was when ``stored`` (the index's fingerprint of it) was
        last confirmed, with nothing reported since, and its last full check recent."""
        watched = look.watched
        confirmed = watched.confirmed
        if confirmed is None or watched.ended or watched is not self._folders.get(look.key):
            return False
        fingerprint, generation, when = confirmed
        fresh = time.monotonic() - when < FULL_CHECK_EVERY_S
        if fresh and generation == look.generation and fingerprint == stored:
            self.skipped += 1
            return True
        return False

    def confirm(self, look: Look, fingerprint: Any) -> None:
        """Record that a full check begun at ``look`` found the folder as ``fingerprint`` says;
        anything reported since ``look`` was taken keeps the next request checking."""
        if look.watched is self._folders.get(look.key) and not look.watched.ended:
            look.watched.confirmed = (fingerprint, look.generation, time.monotonic())

    def _watch(self, key: str, ident: tuple[int, int]) -> _Watched | None:
        old = self._folders.pop(key, None)
        if old is not None:
            self._forget(old.wd, key)
        if filesystem_type(key) not in LOCAL_FILESYSTEMS:
            return None
        try:
            wd = self._inotify.add_watch(key, _MASK)
        except OSError:
            return None
        self._serial += 1
        watched = _Watched(wd, ident, self._serial)
        self._folders[key] = watched
        self._keys.setdefault(wd, set()).add(key)
        return watched

    def _forget(self, wd: int, key: str) -> None:
        keys = self._keys.get(wd)
        if keys is None:
            return
        keys.discard(key)
        if keys:  # still watched under another path
            return
        del self._keys[wd]
        with contextlib.suppress(OSError):  # the kernel dropped it already
            self._inotify.rm_watch(wd)

    def _drain(self) -> None:
        try:
            events = self._inotify.read(timeout=0)
        except OSError:
            events = None
        if events is None:  # the queue cannot be read: trust nothing
            self.note(_Q_OVERFLOW, None)
            return
        for event in events:
            self.note(event.mask, event.wd)

    def note(self, mask: int, wd: int | None) -> None:
        """Take one event into account (public for the tests, which feed the kernel's own
        masks): a folder it names has changed; an overflow means every folder may have."""
        self._serial += 1
        if mask & _Q_OVERFLOW or wd is None:
            # the lost events may have said a watch ended (its folder removed, and perhaps made
            # again with the same inode number): every watch is started anew
            for watched in self._folders.values():
                watched.generation = self._serial
                watched.confirmed = None
                watched.ended = True
            for key, watched in list(self._folders.items()):
                self._forget(watched.wd, key)
            return
        for key in list(self._keys.get(wd, ())):
            watched = self._folders.get(key)
            if watched is None or watched.wd != wd:
                continue
            watched.generation = self._serial
            if mask & _WATCH_ENDED:
                watched.ended = True
                watched.confirmed = None
                self._forget(wd, key)


def filesystem_type(path: str) -> str | None:
    """The type of the file system ``path`` is on (``ext4``, ``nfs``...), from the mount
    table: of the mounts whose point is a prefix of the path's real location, the longest one
    of its device where there is one (a mount hidden under a later one over a parent folder
    keeps its line), else the longest one (btrfs gives its subvolumes devices of their own)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as table:
            lines = table.read().splitlines()
    except OSError:
        return None
    device = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    best: dict[bool, tuple[int, str]] = {}
    for line in lines:
        head, sep, tail = line.partition(" - ")
        fields = head.split()
        if not sep or len(fields) < 5 or not tail:
            continue
        point = _unescape(fields[4])
        if real != point and not real.startswith(point.rstrip("/") + "/"):
            continue
        ours = fields[2] == device
        if ours not in best or len(point) >= best[ours][0]:  # a later mount on a point wins
            best[ours] = (len(point), tail.split()[0])
    found = best.get(True) or best.get(False)
    return found[1] if found is not None else None


def _unescape(field: str) -> str:
    """A mount point as the kernel writes it: space, tab, newline and backslash in octal."""
    if "\\" not in field:
        return field
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field
