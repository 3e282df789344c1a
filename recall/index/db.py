"""Opening the SQLite index: WAL, busy timeout, schema checks and rebuild of a broken file."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from recall.index.schema import BASE_DDL, MIGRATIONS, SCHEMA_VERSION

BUSY_TIMEOUT_MS = 15_000  # long enough to ride out another process's bulk import


class IndexUnusable(Exception):
    """The index file exists but cannot be used as is (corrupt, foreign, from a future schema)."""


def connect(path: Path) -> sqlite3.Connection:
    """Open the index at ``path`` with WAL journaling and a busy timeout; rows are dict-like."""
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        conn.close()
        raise IndexUnusable(f"could not switch the index to WAL mode (got {mode})")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _version(conn: sqlite3.Connection) -> int | None:
    row = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if row is None:
        return None
    found = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(found[0]) if found else None


def prepare(conn: sqlite3.Connection) -> bool:
    """Create or migrate the schema; return True when the tables were just created.

    Raises :class:`IndexUnusable` when the file is not an index this version can use.
    """
    try:
        version = _version(conn)  # reading the schema fails fast on a file that is not SQLite
    except sqlite3.DatabaseError as error:
        raise IndexUnusable(str(error)) from None
    if version is None:
        # Create inside one write transaction so a concurrent opener never sees half a schema.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if _version(conn) is not None:
                conn.execute("COMMIT")
                return False
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise IndexUnusable("the file holds tables but no Tether schema version")
            for statement in BASE_DDL.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
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
            if _version(conn) != version:  # another process migrated while we waited
                conn.execute("COMMIT")
                version = _version(conn) or version
                continue
            for statement in step.split(";"):
                if statement.strip():
                    conn.execute(statement)
            version += 1
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return False


def remove_index_files(path: Path) -> None:
    """Delete an index file and its WAL and shared-memory companions."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def open_checked(path: Path) -> tuple[sqlite3.Connection, bool]:
    """Open and prepare the index; return it and whether its tables were just created.

    Raises :class:`IndexUnusable` (after closing the connection) when the file cannot be used.
    """
    conn: sqlite3.Connection | None = None
    try:
        conn = connect(path)
        return conn, prepare(conn)
    except (IndexUnusable, sqlite3.DatabaseError) as error:
        if conn is not None:
            conn.close()
        raise IndexUnusable(str(error)) from None
