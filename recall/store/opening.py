"""Opening a store's index: synced with the files on first use, rebuilt when damaged, served
read-only from an in-memory copy when it cannot be written; and the guard writes go through."""

from __future__ import annotations

import contextlib
import functools
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from recall import privacy
from recall.errors import NotFound, StoreBusy, StoreUnavailable
from recall.index import db, snapshot
from recall.index.sqlite_open import open_sqlite
from recall.index.sync import SyncReport, sync
from recall.store.base import FREE_SPACE, StoreBase

T = TypeVar("T")

_UNWRITABLE_ATTEMPTS = 4
"""Tries to open the index for writing before serving it read-only: enough to ride out
another process closing it, few enough that a truly full disk is told within a second."""
_UNWRITABLE_PAUSE = 0.05
"""Seconds before the second try (growing linearly after it): a closing writer is gone within
milliseconds, and the pauses add up to 0.3 s, inside the second promised above."""


def is_corruption(error: sqlite3.DatabaseError) -> bool:
    """Whether an SQLite error means the index file is damaged (as opposed to busy or full)."""
    text = str(error).lower()
    return type(error) is sqlite3.DatabaseError or "malformed" in text or "not a database" in text


def recovering(method: Callable[..., T]) -> Callable[..., T]:
    """Run a store method; if the index turns out to be damaged, rebuild it and run it again.

    An index that cannot be written (read-only, disk full) is reported as
    :class:`StoreUnavailable` saying what to do, not as damage; one held by another connection
    past the caller's wait, as :class:`StoreBusy` naming the store.
    """

    @functools.wraps(method)
    def wrapper(self: IndexOpening, *args: object, **kwargs: object) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as error:
            busy = self.busy_past_wait(error)
            if busy is not None:
                raise busy from None
            unwritable = self.describe_index_error(error)
            if unwritable is not None:
                raise StoreUnavailable(unwritable) from None
            if not is_corruption(error):
                raise
            self.recover(error)
            return method(self, *args, **kwargs)

    return wrapper


class IndexOpening(StoreBase):
    """The index of a store: opened, kept in step with the files, recovered, guarded."""

    @property
    def conn(self) -> sqlite3.Connection:
        """The index, opened and synced with the files on first use, and opened again when
        another process replaced its file (a reindex, a recovery) since."""
        conn = self._conn  # once: another thread may drop it meanwhile (see _locked)
        if conn is not None and self._stale(conn):
            conn = None
        if conn is None:
            self._check_again = False  # an opening checks the folder itself
            conn = self._conn = self._open()
        elif self._check_again:
            self._check_again = False
            conn = self._checked_again(conn)
        return conn

    def serve_again(self, notice: Callable[[str], None]) -> None:
        """Serve a long-lived process's next command as a store opened for it would: notices
        to ``notice``, the default waits, the folder checked at the next use. Created since
        or its folder gone (a sync would empty the index on disk): opened afresh."""
        self.notice = notice
        self.wait = self.write_wait = self._deadline = None
        self.for_write = self._read_only_told = False
        if self._in_memory == self.exists:  # created since, or its folder gone since
            self.close()
        elif self._conn is not None:
            self._check_again = True

    @property
    def busy(self) -> bool:
        """Whether reads are served from a copy of the index: another writer held it past
        this caller's :attr:`wait` (the next use after a close opens it again)."""
        return self._busy

    def reusable(self) -> bool:
        """Whether this store may be kept open for another command: its index open for writing
        (or empty in memory), no write, lock or deferred check under way; not a copy."""
        conn = self._conn
        return (
            conn is not None
            and self.read_only is None
            and not self._busy
            and not self._lock_depth
            and self._pending is None
            and not conn.in_transaction
        )

    def _checked_again(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        """The open index synced with the folder as an opening syncs it, waiting for another
        writer as this caller's :attr:`wait` says; not writable now or failing: opened again."""
        if self._in_memory:
            return conn
        if not self.exists or self._unwritable() is not None:  # gone, or not writable now
            return self._opened_afresh(conn)
        conn.execute(f"PRAGMA busy_timeout = {self._wait_ms()}")
        try:
            self.last_sync = sync(conn, self.folder, self.normalize_stored, self._sync_lock)
        except (StoreBusy, sqlite3.Error) as error:
            self._conn = None
            conn.close()
            busy = self._busy_past_wait(error)  # past this caller's wait: a copy, as opening
            conn = self._conn = self._busy_copy(error) if busy else self._open()
            return conn
        self._seen_dir_mtime = self._dir_mtime()
        return conn

    def _opened_afresh(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        self._conn = None
        conn.close()
        conn = self._conn = self._open()
        return conn

    def _busy_copy(self, error: Exception) -> sqlite3.Connection:
        """A copy of the index to read while another writer holds it past this caller's wait."""
        self._busy = True
        return self._open_read_only(f"{error}", "it is busy with another writer")

    def _stale(self, conn: sqlite3.Connection) -> bool:
        """Whether the open index was replaced on disk and may be let go of here: not in the
        middle of a transaction or a locked write (the lock rules out a swap; see _locked)."""
        return not self._lock_depth and not conn.in_transaction and db.replaced(conn)

    def _open(self) -> sqlite3.Connection:
        try:
            return self._opened()
        finally:  # opened, or given up: a later wait for another process is one of its own
            self._deadline = None

    def _opened(self) -> sqlite3.Connection:
        self._drop_pending()  # a check begun for a connection no longer read is not waited for
        defer, self._defer_check = self._defer_check, False
        if not self.exists:
            # Nothing on disk yet: an empty in-memory index, swapped for the real one on the
            # first write (see _ensure_on_disk).
            conn = open_sqlite(":memory:", isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            db.prepare(conn)
            self._in_memory = True
            return conn
        self._in_memory = self._busy = False  # busy again only if another writer still is
        if self.for_write:
            self.wait_for_others()  # said, and the write's deadline begins: see StoreBase
        path = self.location.index_path
        refused = self._unwritable()
        if refused is not None:
            return self._open_read_only(*refused)
        self.read_only = None
        for attempt in range(_UNWRITABLE_ATTEMPTS):
            try:
                conn = self._open_writable(path, defer=defer)
                break
            except (StoreBusy, sqlite3.OperationalError) as error:
                if self._busy_past_wait(error):
                    if self.for_write:
                        self._past_deadline()
                    return self._busy_copy(error)
                if isinstance(error, sqlite3.OperationalError) and db.is_busy(error):
                    raise self._held_too_long(error) from None
                raise
            except db.IndexUnwritable as error:
                # A writer closing at this very moment can make SQLite answer "cannot open" or
                # an I/O error once; a read-only file system or a full disk answers every time.
                if attempt + 1 < _UNWRITABLE_ATTEMPTS and self._unwritable() is None:
                    time.sleep(_UNWRITABLE_PAUSE * (attempt + 1))
                    continue
                advice = FREE_SPACE if error.full else self._make_writable()
                return self._open_read_only(f"{path}: {error}", advice)
        self._seen_dir_mtime = self._dir_mtime()
        return conn

    def _open_writable(self, path: Path, *, defer: bool = False) -> sqlite3.Connection:
        """Open (rebuilding if damaged) and sync the index on disk; raises
        :class:`db.IndexUnwritable` when it turns out it cannot be written. With ``defer``, the
        check of a large settled folder may be left running (see :meth:`settle`)."""
        missing = not path.exists()
        try:
            conn, created = self._open_index(path)
        except db.IndexUnusable as error:
            conn, created = self._rebuild_unusable(path, str(error))
        else:
            if created and not self._rebuilding and self.folder.scan():
                state = "missing" if missing else "empty"
                self.notice(f"index {path} was {state}; rebuilding it from the memory files")
        try:
            self.last_sync = sync(
                conn, self.folder, self.normalize_stored, self._sync_lock, defer=defer
            )
            self._pending = self.last_sync.pending
        except sqlite3.DatabaseError as error:
            conn.close()
            if db.is_read_only_error(error) or db.is_full_error(error):
                raise db.IndexUnwritable(str(error), full=db.is_full_error(error)) from None
            if not is_corruption(error):
                raise
            conn, _ = self._rebuild_unusable(path, str(error), force=True)
            self.last_sync = sync(conn, self.folder, self.normalize_stored, self._sync_lock)
        return conn

    def _open_index(self, path: Path) -> tuple[sqlite3.Connection, bool]:
        """:func:`db.open_checked`, creating a private store's index owner-only first."""
        if self._private:
            with contextlib.suppress(OSError):  # SQLite reports what it cannot open
                privacy.create_private(path)
        return db.open_checked(path, self._wait_ms())

    def _open_read_only(self, reason: str, advice: str) -> sqlite3.Connection:
        """Serve reads from an in-memory copy of the index, synced with the memory files.

        Nothing is written to disk: usage, surfacings, turns and hint state live in the copy
        for as long as this store stays open. Writes are refused (see :meth:`_writable`).
        """
        self.read_only = reason
        self._read_only_advice = advice
        path = self.location.index_path
        if self.wait is None:
            conn, problem = snapshot.open_snapshot(path)
        else:
            conn, problem = snapshot.open_snapshot(path, self.wait)
        if not self._read_only_told and not self._busy:  # a busy copy is said below
            self._read_only_told = True
            self.notice(
                f"read-only store {self.location.base}: {reason}; "
                "memories are served read-only and usage is not recorded"
            )
            if problem is not None:
                self.notice(f"index {path} could not be read ({problem}); using the memory files")
        if self._busy:
            # Reading every file added since (a bulk import: thousands) would outlast the
            # caller's wait; the copy is served as the index was at its last commit.
            self.notice(
                f"store {self.location.base} is busy: serving its index as of its last commit, "
                f"without the memory files changed since ({reason}; usage is not recorded)"
            )
            self._seen_dir_mtime = self._dir_mtime()
            return conn
        try:
            self.last_sync = sync(conn, self.folder, self.normalize_stored, self._sync_lock)
        except BaseException:
            conn.close()
            raise
        self._seen_dir_mtime = self._dir_mtime()
        return conn

    def recover(self, error: Exception) -> None:
        """Rebuild a damaged index from the files; the next use of :attr:`conn` reopens it."""
        self.close()
        if self.read_only is not None:
            return  # the copy is rebuilt from the files on the next open; the disk is left alone
        try:
            self._rebuild_unusable(self.location.index_path, str(error), force=True)[0].close()
        except db.IndexUnwritable as failure:
            raise StoreUnavailable(
                f"the index {self.location.index_path} was damaged and cannot be rebuilt "
                f"({failure}); free some space or fix the permissions of "
                f"{self.location.base}, then retry"
            ) from None

    def _rebuild_unusable(
        self, path: Path, reason: str, *, force: bool = False
    ) -> tuple[sqlite3.Connection, bool]:
        with self._locked():
            if not force:
                try:  # another process may have rebuilt it while we waited for the lock
                    return self._open_index(path)
                except db.IndexUnusable:
                    pass
            from recall.store.recovery import replace_unusable  # rebuilds only

            # The per-user tables and the code map exist nowhere else: carried, where they can
            # be read, from an index made here.
            left = replace_unusable(path, self.folder.path, self._open_index)
            self.notice(
                f"index {path} was unusable ({reason}); rebuilding it from the memory files{left}"
            )
            return self._open_index(path)

    @contextlib.contextmanager
    def _writable(self) -> Iterator[None]:
        """Hold the writers' lock for a write; a read-only store refuses it, saying what to do.
        With :attr:`write_wait`, another process holding the store is waited for that long
        (:meth:`wait_for_others`, :meth:`_write_waits`), then :class:`StoreBusy`."""
        try:
            self.wait_for_others()
            with self._write_waits():
                if self._busy:  # served from a copy while another writer held it: the index
                    self.close()
                if self._conn is None:
                    self._read_only_told = True  # the refusal below says it all; no notice
                self.conn  # noqa: B018 - opening the index finds out whether it can be written
                self.settle()  # a write goes into the index as the files are
                if self._busy and self.write_wait is not None:  # held past the write's wait
                    self._past_deadline()
                if self.read_only is not None:
                    raise self._refusal(self.read_only, self._read_only_advice)
                with self._write_locked():
                    yield
        finally:
            if not self._lock_depth:  # the write is done: the next one waits afresh
                self._deadline = None

    def require_writable(self) -> None:
        """Refuse, saying what to do, when this store's index cannot be written; for commands
        that write the index by other means (the genome's ``tether index``)."""
        self.conn  # noqa: B018 - opening the index finds out whether it can be written
        self.settle()  # a write goes into the index as the files are
        if self.read_only is not None:
            raise self._refusal(self.read_only, self._read_only_advice)

    @recovering
    def write_per_user(self, change: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``change`` on the index, for a change a person asked for to this user's own
        tables (a memory brought back from disuse, a cleanup decision or pass); return what it
        returns.

        Refused like any other write when the store is read-only or out of room: there the
        index is an in-memory copy, and a change made only to the copy would be reported done
        and then lost. Counting while reading (surfacings, turns) does not come here; on a
        read-only store it stays in the copy, so that reads keep working (see recall.policy.usage).
        """
        if not self.exists:
            raise NotFound(f"no {self.scope} store yet at {self.location.base}")
        with self._writable():
            return change(self.conn)

    def defer_first_check(self) -> None:
        """Let the index's first opening leave the check of a large, settled folder to a
        child process (:mod:`recall.index.deferred_check`), for a caller that asks for the
        verdict (:meth:`settle`) before it uses what it read; no effect once it is open."""
        if self._conn is None:
            self._defer_check = True

    def settle(self) -> bool:
        """Wait for the deferred check of the folder, if one runs; when it found a file
        changed since the index, open the index again (synced, or served as any opening serves
        a busy, full or damaged one) and say so: what was read before is then stale, even if
        another process synced the change meanwhile. Without a deferred check: False."""
        pending, self._pending = self._pending, None
        if pending is None or pending.as_indexed():
            return False
        self._conn = None  # dropped, not closed: the engine's genome holds it until it rebinds
        self.conn  # noqa: B018 - opening it again checks the folder here and syncs it
        return True

    def refresh(self) -> SyncReport:
        """Pick up memory files changed on disk since the index was last synced; the index
        held by another connection past this caller's wait: :class:`StoreBusy`."""
        self._drop_pending()  # checked here and now
        with self._busy_said():
            self.last_sync = sync(self.conn, self.folder, self.normalize_stored, self._sync_lock)
        self._seen_dir_mtime = self._dir_mtime()
        return self.last_sync

    def _refresh_if_folder_changed(self) -> None:
        """Re-sync when files were added, removed or renamed since this process last looked.

        One stat of the folder; in-place edits of existing files wait for the next open.
        """
        if self._dir_mtime() != self._seen_dir_mtime:
            self.refresh()
