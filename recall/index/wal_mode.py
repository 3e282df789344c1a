"""Switching a newly opened index to WAL journaling, as the busy timeout promises to wait.

Two processes opening a store whose index does not exist yet (two agent hooks at a session's
first prompt) both create the file and ask for WAL mode at once; SQLite answers the one that
loses "database is locked" at once, without calling its busy handler. The switch is asked
again until the caller's busy timeout has passed, as any other wait for another writer.
"""

from __future__ import annotations

import sqlite3
import time

SWITCH_PAUSE_SECONDS = 0.01
"""Pause between two asks: the other process's switch takes a few milliseconds."""


def _is_busy(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def switch_to_wal(conn: sqlite3.Connection, busy_ms: int) -> str:
    """Ask for WAL journaling on ``conn``; the journal mode SQLite answers. Another
    connection switching the same new file at this moment is waited for up to ``busy_ms``;
    after that, or on any other error, the error is raised."""
    deadline = time.monotonic() + busy_ms / 1000
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as error:
            if not _is_busy(error) or time.monotonic() >= deadline:
                raise
            time.sleep(SWITCH_PAUSE_SECONDS)
