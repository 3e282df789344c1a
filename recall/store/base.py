"""The state every part of a store shares: where it lives, its folder, the writers' lock,
the two forms of a path."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Protocol

from recall import privacy
from recall.errors import StoreBusy, StoreUnavailable
from recall.index import db
from recall.index.sync import SyncReport
from recall.locations import GLOBAL, Location, SetUp
from recall.memfiles import MemoryFolder
from recall.paths import normalize, normalize_loose
from recall.store.busy import (
    SAY_AFTER_SECONDS,
    busy_message,
    held_elsewhere,
    held_for,
    wait_until_free,
)
from recall.writer_lock import writer_lock

if TYPE_CHECKING:
    from recall.index.deferred_check import DeferredCheck

Notice = Callable[[str], None]

FREE_SPACE = "free some space on its device and retry"
WRITABLE_CLONE = "work in a writable clone of the repository"

_EFFECTIVE_IDS = os.access in os.supports_effective_ids
"""Ask ``access`` about the effective user (the one SQLite writes as) where the OS can."""


def _stderr_notice(message: str) -> None:
    print(f"tether: {message}", file=sys.stderr)


def _plain_file(path: Path) -> bool:
    """Whether ``path`` is a plain file, not followed through a link (missing: True, as
    SQLite creates it)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


class Finishing(Protocol):
    """Work a committed write left running on a thread of its own."""

    def wait(self) -> None:
        """Return once it is done."""


class StoreBase:
    """One scope's store as every part of it sees it: its location and folder, the index
    connection once opened, the writers' lock, and the two forms of a path."""

    def __init__(self, location: Location, *, notice: Notice = _stderr_notice) -> None:
        self.location = location
        self._private = location.scope == GLOBAL  # see recall.privacy
        self._file_mode = privacy.FILE_MODE if self._private else 0o644
        self.folder = MemoryFolder(location.memories_dir, file_mode=self._file_mode)
        self.notice = notice
        self._conn: sqlite3.Connection | None = None
        self._rebuilding = False  # set by reindex, whose rebuild is asked for, not a surprise
        self._seen_dir_mtime = 0
        self._lock_depth = 0
        self._thread_lock = threading.RLock()  # one writer at a time within this process too
        self._in_memory = False
        self.read_only: str | None = None
        """Why the index cannot be written, when it cannot: the store then serves reads from
        an in-memory copy and refuses writes (see :meth:`_open_read_only`)."""
        self._read_only_advice = ""
        self._read_only_told = False
        self.last_sync: SyncReport | None = None
        self.set_up: SetUp | None = None
        """What this store's first write made on disk (its folders, where its ignore rules
        went), until a front end has said it and cleared it."""
        self.wait: float | None = None
        """Seconds this store waits at most for another writer (None: as long as it takes). A
        short-lived caller on a clock (a hook) sets it; a store kept busy past it serves reads
        from a copy, as a read-only one does."""
        self.write_wait: float | None = None
        """Seconds a write waits at most for another process holding this store, saying so once
        it passes a second, before it fails naming the store (:mod:`recall.store.busy`); None:
        a write waits as :attr:`wait` says. The CLI and the MCP server set it."""
        self.for_write = False
        """Whether this store serves a command that writes (the CLI's): its index is opened
        once no other process holds the store, waited for as the write waits (saying so),
        and a store still held past that fails the command naming it, instead of serving
        the index as last committed, which would say the command reads only."""
        self._deadline: float | None = None
        """When this store's wait for another process ends (monotonic clock): set as a write
        (or a write command's read) first finds the store held, cleared as soon as it is found
        free again (an index opened, the writers' lock taken, a write done) or the wait is
        given up. The waits of one such episode add up to one :attr:`write_wait`, however
        often another writer slips in between them; a later wait has a whole one of its own."""
        self._busy = False
        self._defer_check = False
        self._check_again = False  # kept open for another command: check the folder at next use
        self._pending: DeferredCheck | None = None
        """The check of the folder left running in a child by the index's opening, until its
        verdict is asked for (see :meth:`recall.store.opening.IndexOpening.settle`)."""
        self._finishing: list[Finishing] = []
        """What a bulk write left running on threads of its own once committed (its log copied
        into the index file, the recall cache written), so that its caller's output is not kept
        waiting for it: waited for by :meth:`finish_writes`, which :meth:`close` calls."""

    @property
    def scope(self) -> str:
        """``project`` or ``global``."""
        return self.location.scope

    @property
    def repo_root(self) -> Path | None:
        """The repository this store's paths are relative to (None for a global store alone)."""
        return self.location.repo_root

    @property
    def exists(self) -> bool:
        """Whether the store has been created on disk."""
        return self.location.memories_dir.is_dir()

    def close(self) -> None:
        """Close the index connection, once what a write left running is done (and give up on
        a deferred check of the folder)."""
        self.finish_writes()
        self._drop_pending()
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def finish_writes(self) -> None:
        """Return once what a committed bulk write left running on its threads is done."""
        finishing, self._finishing = self._finishing, []
        for work in finishing:
            work.wait()

    def _drop_pending(self) -> None:
        """Stop waiting for a deferred check of the folder (its child is reaped)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.stop()

    @contextlib.contextmanager
    def _locked(self, *, required: bool = True) -> Iterator[None]:
        """Hold the writers' lock (re-entrant within this store: flock is per descriptor)."""
        with self._thread_lock:
            if self._lock_depth:
                self._lock_depth += 1
                try:
                    yield
                finally:
                    self._lock_depth -= 1
                return
            lock = writer_lock(
                self.location.lock_path,
                required=required,
                mode=self._file_mode,
                wait=self._wait_left(),
            )
            with contextlib.ExitStack() as held:
                try:
                    held.enter_context(lock)
                finally:  # taken or given up: this wait for another process is over
                    self._deadline = None
                self._lock_depth = 1
                # A reindex swaps the file under this lock: once it is held, the file at the
                # path stays the same, so a write goes to the index everyone else reads. The
                # old connection is dropped, not closed: a caller may still hold it.
                if self._conn is not None and db.replaced(self._conn):
                    self._conn = None
                try:
                    yield
                finally:
                    self._lock_depth = 0

    def wait_for_others(self) -> None:
        """With :attr:`write_wait`, wait until no other process holds this store's writers'
        lock or its index's write lock, saying so once the wait passes a second; past
        :attr:`write_wait`, :class:`StoreBusy` naming the store and saying nothing was written
        (:func:`recall.store.busy.wait_until_free`). Within a write of this store: no wait."""
        if self.write_wait is None or self._lock_depth:
            return
        if self._conn is not None and self._conn.in_transaction:
            return  # its own write lock is none of another process's
        if not held_elsewhere(self):
            return
        if self._deadline is None:
            self._deadline = time.monotonic() + self.write_wait
        try:
            wait_until_free(
                lambda: [self] if held_elsewhere(self) else [],
                self.notice,
                wait=max(self._deadline - time.monotonic(), 0.0),
                say_after=0 if self._busy else SAY_AFTER_SECONDS,  # a read waited already
            )
        except StoreBusy:
            self._past_deadline()

    def _wait_left(self) -> float | None:
        """Seconds this store may still wait for another process: what is left of a write's
        deadline while one runs, else :attr:`wait`."""
        if self._deadline is None:
            return self.wait
        return max(self._deadline - time.monotonic(), 0.0)

    def _past_deadline(self) -> NoReturn:
        """Give up a write (or a write command's read) held off past its wait: raise
        :class:`StoreBusy` naming the store and how long it waited, nothing written."""
        if self._deadline is None:
            waited = self.wait
        else:
            waited = time.monotonic() - self._deadline + (self.write_wait or 0.0)
        self._deadline = None
        raise StoreBusy(busy_message([self], waited=waited))

    @contextlib.contextmanager
    def _write_locked(self) -> Iterator[None]:
        """Hold the writers' lock for a write, its wait what is left of the write's; past
        it, :class:`StoreBusy` naming the store."""
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(self._locked())
            except StoreBusy:
                if self.write_wait is None:
                    raise
                self._past_deadline()
            yield

    @contextlib.contextmanager
    def _write_waits(self) -> Iterator[None]:
        """Within a write, another process holding the store is waited for as long as
        :attr:`write_wait` says (reads wait only :attr:`wait`): its lock, and its index, by
        this store's connection too; restored after."""
        if self.write_wait is None:
            yield
            return
        kept, self.wait = self.wait, self.write_wait
        self._wait_index(self._conn)
        try:
            yield
        finally:
            self.wait = kept
            self._wait_index(self._conn)

    def _wait_index(self, conn: sqlite3.Connection | None) -> None:
        """Have ``conn`` wait for another connection holding the index as :attr:`wait` says."""
        if conn is not None:
            with contextlib.suppress(sqlite3.ProgrammingError):  # closed meanwhile
                conn.execute(f"PRAGMA busy_timeout = {self._wait_ms()}")

    def _wait_ms(self) -> int:  # this caller's wait for another writer, else the default
        left = self._wait_left()
        return db.BUSY_TIMEOUT_MS if left is None else max(int(left * 1000), 1)

    def _busy_past_wait(self, error: Exception) -> bool:
        """Whether ``error`` is another writer holding the index past this caller's wait."""
        return self.wait is not None and (isinstance(error, StoreBusy) or db.is_busy(error))

    def busy_past_wait(self, error: sqlite3.Error) -> StoreBusy | None:
        """:class:`StoreBusy` naming this store when ``error`` is another connection holding
        the index's write lock past this caller's :attr:`wait` (a genome refresh or an indexer
        thread holds it without the writers' lock); None for other errors, or with no wait."""
        if self.wait is None or not db.is_busy(error):
            return None
        return StoreBusy(
            f"the {self.scope} store {self.location.base} is busy: another connection held its "
            f"index{held_for(self.wait)} ({error}); retry when it has finished"
        )

    @contextlib.contextmanager
    def _busy_said(self) -> Iterator[None]:
        """Run the block, raising :meth:`busy_past_wait`'s :class:`StoreBusy` for SQLite's."""
        try:
            yield
        except sqlite3.OperationalError as error:
            busy = self.busy_past_wait(error)
            if busy is None:
                raise
            raise busy from None

    def _held_too_long(self, error: sqlite3.Error) -> StoreBusy:
        """Another writer held the index past the default wait: said, never taken for damage
        (a rebuild would remove the index under that writer)."""
        return StoreBusy(
            f"the index {self.location.index_path} stayed locked by another process for "
            f"{db.BUSY_TIMEOUT_MS / 1000:g} s ({error}); retry when it has finished"
        )

    def _unwritable(self) -> tuple[str, str] | None:
        """Why this store's index cannot be written here and what to do, or None when it can.

        Probed with ``statvfs`` and ``access`` on the index files and the lock, never by
        opening them (closing any descriptor of a file drops this process's POSIX locks on it,
        SQLite's too). A read-only file, folder or mount and a missing permission count, for
        root too; a file gone between the two looks (the WAL its last connection removed) is
        missing."""
        base = self.location.base
        index = self.location.index_path
        for target in (index, Path(f"{index}-wal"), Path(f"{index}-shm"), self.location.lock_path):
            try:
                read_only_mount = bool(os.statvfs(target).f_flag & os.ST_RDONLY)
            except OSError:
                continue  # missing is fine (it gets created); anything stranger is SQLite's
            if target != self.location.lock_path and not _plain_file(target):
                return (
                    f"{target} is not a file: a folder or another kind of entry has its name",
                    f"remove it (`rm -r {target}`); the index is rebuilt from the memory files",
                )
            if read_only_mount:
                return f"{target} is on a read-only file system", WRITABLE_CLONE
            if not os.access(target, os.W_OK, effective_ids=_EFFECTIVE_IDS):
                if not os.path.lexists(target):
                    continue
                return f"{target} is not writable: permission denied", self._make_writable()
        if not os.access(base, os.W_OK):
            return f"{base} is not writable", self._make_writable()
        return None

    def _refusal(self, reason: str, advice: str) -> StoreUnavailable:
        what = "has no room left" if advice == FREE_SPACE else "is read-only"
        return StoreUnavailable(
            f"the {self.scope} store {self.location.base} {what} ({reason}); nothing was "
            f"written; {advice}"
        )

    def _make_writable(self) -> str:
        base = self.location.base
        return f"make it writable (for example `chmod -R u+w {base}`) or work in a writable clone"

    def _dir_mtime(self) -> int:
        try:
            return os.stat(self.folder.path).st_mtime_ns
        except OSError:
            return 0

    @contextlib.contextmanager
    def _sync_lock(self) -> Iterator[None]:
        """The writer lock for a sync; a read-only store (nobody can write) syncs without it."""
        if self._busy:  # a copy of an index another writer holds: nothing to guard
            yield
            return
        with self._locked(required=False):
            yield

    # -- paths -----------------------------------------------------------------------------

    def normalize_stored(self, raw: str) -> str:
        """Normalize a path as written in a memory file (relative to the repository root),
        spaces at its ends and all."""
        if self.repo_root is None or self.scope == GLOBAL:
            return normalize_loose(raw, label="file")
        return normalize(raw, self.repo_root, label="file", exact=True)

    def normalize_input(
        self,
        raw: str,
        cwd: Path,
        *,
        exact: bool = False,
        names: str = "a file or folder",
        label: str = "--file",
    ) -> str:
        """Normalize a path a user typed (relative to ``cwd``) to the stored form; ``exact``
        keeps spaces at its ends (a name as written by an export); ``names`` is what the
        command takes (said when the path is the repository root), ``label`` the option that
        gave it (named when it is refused)."""
        if self.repo_root is None:
            return normalize_loose(raw, label=label)
        return normalize(raw, self.repo_root, cwd, label=label, exact=exact, names=names)

    def describe_index_error(self, error: sqlite3.Error) -> str | None:
        """A user-facing message for an index write that failed for want of room or
        permission (None for any other error)."""
        path = self.location.index_path
        if db.is_read_only_error(error):
            return (
                f"the index {path} cannot be written ({error}); make {self.location.base} "
                "writable and retry"
            )
        if db.is_full_error(error):
            return (
                f"the index {path} could not be written ({error}); free some space on its "
                "device and retry"
            )
        return None
