"""Opening the SQLite index: WAL, busy timeout, schema checks (an in-memory snapshot serves an
index that cannot be written: :mod:`recall.index.snapshot`).

A rebuilt index replaces the file at its path (:mod:`recall.index.swap`); every connection
remembers which file it opened (device and inode, read while no swap can happen), to tell that
the path holds another file since; :mod:`recall.index.home` refuses one not made as its file,
before anything else is read or run on it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from recall.index.home import NO_VERSION, first_look, record_home
from recall.index.schema import BASE_DDL, MIGRATIONS, SCHEMA_VERSION
from recall.index.sqlite_open import open_sqlite
from recall.index.wal_mode import switch_to_wal

BUSY_TIMEOUT_MS = 15_000  # long enough to ride out another process's bulk import


class IndexUnusable(Exception):
    """The index file exists but cannot be used as is (corrupt, foreign, from a future schema)."""


class IndexUnwritable(Exception):
    """The index cannot be written here (read-only, or no room left); it may still be read."""

    def __init__(self, message: str, *, full: bool) -> None:
        super().__init__(message)
        self.full = full
        """True when the write failed for want of room rather than permission."""


_READ_ONLY_CODES = frozenset(
    {sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM}
)


def is_read_only_error(error: sqlite3.Error) -> bool:
    """Whether an SQLite error means the index cannot be written (as opposed to damaged)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in _READ_ONLY_CODES


def is_busy(error: sqlite3.Error) -> bool:
    """Whether an SQLite error means another connection held the lock past the busy timeout."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def is_full_error(error: sqlite3.Error) -> bool:
    """Whether an SQLite error means a write ran out of room or failed at the device (disk
    full, a file size limit, a shared-memory file that cannot be grown)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR)


def is_unwritable_error(error: sqlite3.Error) -> bool:
    """Whether a write failed because the index cannot be written just now (read-only or out
    of room), so a caller may skip a write that is only bookkeeping."""
    return is_read_only_error(error) or is_full_error(error)


def rollback(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction, unless SQLite already has (it does on a full disk, and
    a second ROLLBACK would raise and hide the error that matters)."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


class IndexConnection(sqlite3.Connection):
    """A connection to an index file that knows which file it opened."""

    index_path: Path | None = None
    identity: tuple[int, int] | None = None
    """(device, inode) of the file opened; None when unknown (then it is never "replaced")."""


def swap_lock_path(path: Path) -> Path:
    """The lock that keeps openers of the index at ``path`` apart from a swap of its file."""
    return Path(f"{path}-swap.lock")


@contextlib.contextmanager
def swap_guard(path: Path, *, exclusive: bool) -> Iterator[None]:
    """Hold the swap lock of the index at ``path``: shared while opening the index (its file,
    WAL and shared memory must be one database's), exclusive while swapping the file.

    Where the lock cannot be created (a read-only store, where nobody can swap the file)
    the block runs without it.
    """
    try:
        fd = os.open(
            swap_lock_path(path), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
        )
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``; None when there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def replaced(conn: sqlite3.Connection) -> bool:
    """Whether the index file ``conn`` opened is no longer the one at its path (a reindex or
    a recovery put another file there, or removed it). A stat; no SQL."""
    if not isinstance(conn, IndexConnection) or conn.identity is None:
        return False
    assert conn.index_path is not None
    return file_identity(conn.index_path) != conn.identity


def write_locked(path: Path) -> bool:
    """Whether another connection holds the write lock of the index at ``path`` now (one try,
    never a wait: a genome refresh or an indexer holds it without the writers' file lock).
    Nothing is created; an index that cannot be opened or written is held by nobody."""
    if not path.exists():
        return False
    with swap_guard(path, exclusive=False):  # closing must not touch a swapped-in file's WAL
        try:
            probe = open_sqlite(
                f"{path.absolute().as_uri()}?mode=rw", uri=True, timeout=0, isolation_level=None
            )
        except sqlite3.Error:
            return False
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
        except sqlite3.Error as error:
            return is_busy(error)
        finally:
            probe.close()
    return False


def tuples(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor of ``conn`` whose rows are plain tuples. The index's connections make each row
    a ``sqlite3.Row`` (read by name), which costs about as much again as SQLite's own work
    when a statement returns thousands of rows, as a fresh engine's first reads do."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor


def connect(path: Path, busy_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Open the index at ``path`` with WAL journaling and a busy timeout (``busy_ms``); rows
    are dict-like. Raises :class:`IndexUnusable` for a file not made as the index at ``path``
    (:func:`recall.index.home.first_look`), told before anything is written to it or run on
    it, its journal mode included."""
    with swap_guard(path, exclusive=False):
        conn = open_sqlite(
            path,
            timeout=busy_ms / 1000,
            isolation_level=None,
            check_same_thread=False,
            factory=IndexConnection,
        )
        assert isinstance(conn, IndexConnection)
        conn.index_path = Path(path)
        conn.identity = file_identity(path)  # the file opened: no swap while the guard is held
        try:
            why = first_look(conn, conn.identity)
        except BaseException:
            conn.close()
            raise
        if why is not None:
            conn.close()
            raise IndexUnusable(why)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
        mode = switch_to_wal(conn, busy_ms)  # opens the WAL and shared memory: under the guard
        if mode.lower() != "wal":
            conn.close()
            raise IndexUnusable(f"could not switch the index to WAL mode (got {mode})")
        conn.execute("PRAGMA synchronous = NORMAL")
    return conn


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction on the index file now at ``conn``'s path; yields the connection
    to write with, and commits when the block ends (rolls back if it raises).

    Inside a transaction the caller opened, that is ``conn``, and the caller commits. Else
    it is ``conn`` itself unless its file was replaced: the check comes after the write
    lock is taken, and a swap copies the per-user tables out of the old file while holding
    that same lock, so a write either lands in the old file before the copy, or here, in the
    new one (through a connection of its own, closed after the block).
    """
    if conn.in_transaction:  # the caller's own transaction: its lock, its check
        yield conn
        return
    target = conn
    try:
        for _attempt in range(_FOLLOW_ATTEMPTS):
            target.execute("BEGIN IMMEDIATE")
            if not replaced(target):
                break
            rollback(target)
            assert isinstance(target, IndexConnection) and target.index_path is not None
            path = target.index_path
            if target is not conn:
                target.close()
            target = open_checked(path)[0]
        else:
            raise sqlite3.OperationalError("the index file kept being replaced; retry")
        try:
            yield target
            target.execute("COMMIT")
        except BaseException:
            rollback(target)
            raise
    finally:
        if target is not conn:
            target.close()


_FOLLOW_ATTEMPTS = 5
"""Swaps in a row a write follows before giving up (a reindex needs one; five is a loop)."""


def schema_version(conn: sqlite3.Connection) -> int | None:
    """The schema version an index says it has; None when it has none (empty or foreign).
    Raises ``sqlite3.Error`` when the file cannot be read, ``ValueError`` when the version
    is not a number."""
    row = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if row is None:
        return None
    found = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(found[0]) if found else None


def prepare(conn: sqlite3.Connection) -> bool:
    """Create or migrate the schema; return True when the tables were just created. Raises
    :class:`IndexUnusable` when the file is not an index this version can use (one not made as
    its file was refused by :func:`connect`, before this runs)."""
    try:
        version = schema_version(conn)  # reading the schema fails fast on a file that is not SQLite
    except sqlite3.DatabaseError as error:
        if is_unwritable_error(error):  # no room or no permission says nothing of the file
            raise
        raise IndexUnusable(str(error)) from None
    if version is None:
        # Create inside one write transaction so a concurrent opener never sees half a schema.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if schema_version(conn) is not None:
                conn.execute("COMMIT")
                return False
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise IndexUnusable(NO_VERSION)
            for statement in BASE_DDL.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
            record_home(conn)  # with the tables: no opener sees an index without it
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
        return True
    if version > SCHEMA_VERSION:
        raise IndexUnusable(
            f"schema version {version} is newer than this Tether understands ({SCHEMA_VERSION})"
        )
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise IndexUnusable(f"no migration from schema version {version}")
        conn.execute("BEGIN IMMEDIATE")
        try:
            if schema_version(conn) != version:  # another process migrated while we waited
                conn.execute("COMMIT")
                version = schema_version(conn) or version
                continue
            for statement in step.split(";"):
                if statement.strip():
                    conn.execute(statement)
            version += 1
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
    return False


def unlink_index_files(path: Path) -> None:
    """Delete an index file and its companions; the caller holds the exclusive swap lock."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def open_checked(path: Path, busy_ms: int = BUSY_TIMEOUT_MS) -> tuple[sqlite3.Connection, bool]:
    """Open and prepare the index; return it and whether its tables were just created.

    Raises :class:`IndexUnwritable` when the index or its folder cannot be written (which
    says nothing about the file's health), the ``sqlite3.OperationalError`` itself when
    another connection held the index past ``busy_ms``, and :class:`IndexUnusable` when the
    file cannot be used. The connection is closed either way.
    """
    conn: sqlite3.Connection | None = None
    try:
        conn = connect(path, busy_ms)
        return conn, prepare(conn)
    except (IndexUnusable, sqlite3.DatabaseError) as error:
        if conn is not None:
            conn.close()
        if isinstance(error, sqlite3.Error) and is_read_only_error(error):
            raise IndexUnwritable(str(error), full=False) from None
        if isinstance(error, sqlite3.Error) and is_full_error(error):
            raise IndexUnwritable(str(error), full=True) from None
        if isinstance(error, sqlite3.Error) and is_busy(error):
            raise  # another writer held it past the wait: says nothing of the file's health
        raise IndexUnusable(str(error)) from None
