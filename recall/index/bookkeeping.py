"""Writes of bookkeeping (usage counts, session turns): worth doing, never worth failing for.

When the index cannot be written just now (it became read-only, or its disk filled up, while
the process had it open; or another connection held its write lock past the caller's wait),
such a write is skipped rather than failing the read that caused it.
Each goes through :func:`recall.index.db.write_transaction`, so it lands in the index now at
the path when a reindex replaced the file the connection opened.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from recall.index.db import (
    IndexUnwritable,
    is_busy,
    is_unwritable_error,
    prepare,
    write_transaction,
)
from recall.index.sqlite_open import open_sqlite


@dataclass
class Outcome:
    """Whether the bookkeeping write was made (False: skipped), and whether it was skipped
    because another connection held the index's write lock (past the connection's wait): a
    caller may keep such a write and make it once the lock is free."""

    written: bool = False
    busy: bool = False


@contextlib.contextmanager
def bookkeeping(conn: sqlite3.Connection) -> Iterator[tuple[sqlite3.Connection, Outcome]]:
    """A write transaction whose failure for want of a writable (or free) index is skipped;
    yields the connection to write through and an :class:`Outcome` set once it committed."""
    outcome = Outcome()
    began = False
    try:
        with write_transaction(conn) as target:
            began = True
            yield target, outcome
        outcome.written = True
    except IndexUnwritable:
        pass
    except sqlite3.OperationalError as error:
        outcome.busy = is_busy(error)
        if not (is_unwritable_error(error) or outcome.busy):
            raise
    if not began:  # refused before the block ran: it writes to a scratch copy, dropped after
        scratch = open_sqlite(":memory:", isolation_level=None)
        try:
            prepare(scratch)
            yield scratch, outcome
        finally:
            scratch.close()


@contextlib.contextmanager
def waiting_at_most(conn: sqlite3.Connection, busy_ms: int) -> Iterator[None]:
    """``conn`` with its busy timeout at ``busy_ms`` for the block, then put back: a write in
    it that finds another connection holding the index fails as busy after that long instead
    of the connection's own wait. The timeout is the connection's, so no other thread may use
    the connection meanwhile."""
    waited = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA busy_timeout = {waited}")
