"""Writes of bookkeeping (usage counts, session turns): worth doing, never worth failing for.

When the index cannot be written just now (it became read-only, or its disk filled up, while
the process had it open), such a write is skipped rather than failing the read that caused it.
Each goes through :func:`recall.index.db.write_transaction`, so it lands in the index now at
the path when a reindex replaced the file the connection opened.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from recall.index.db import IndexUnwritable, is_unwritable_error, write_transaction


@dataclass
class Outcome:
    """Whether the bookkeeping write was made (False: skipped, the index is unwritable)."""

    written: bool = False


@contextlib.contextmanager
def bookkeeping(conn: sqlite3.Connection) -> Iterator[tuple[sqlite3.Connection, Outcome]]:
    """A write transaction whose failure for want of a writable index is skipped, not raised;
    yields the connection to write through and an :class:`Outcome` set once it committed."""
    outcome = Outcome()
    try:
        with write_transaction(conn) as target:
            yield target, outcome
        outcome.written = True
    except IndexUnwritable:
        return
    except sqlite3.OperationalError as error:
        if not is_unwritable_error(error):
            raise
