"""A large write's log copied into the index on a thread of its own, while the writer goes on.

An index is in write-ahead-log mode: a commit appends its pages to the log, and SQLite copies
them into the index file (a checkpoint) on the writer's connection as the commit ends, once the
log holds more than 1,000 pages. After an import that is every page of the index, copied while
nothing else happens. The import commits with that copy held back and hands it to
:class:`LogCopy`, which makes it on a connection of its own while the writer builds the recall
cache and its caller says what was written; the store waits for it before it closes, or
before its next bulk write (:meth:`recall.store.base.StoreBase.finish_writes`). Readers and
writers go on meanwhile (a checkpoint of this kind blocks neither), and a copy that cannot be
made (another connection holds the log) is left to the next commit's, as SQLite would.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from recall.index.sqlite_open import open_sqlite


class LogCopy:
    """One checkpoint of the index at ``path``, begun at once on a thread of its own."""

    def __init__(self, path: Path) -> None:
        """Begin copying the log of the index at ``path`` into it."""
        self.path = path
        self.error: sqlite3.Error | None = None
        self._thread = threading.Thread(target=self._run, name="tether-log-copy", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            conn = open_sqlite(self.path, isolation_level=None, check_same_thread=False)
            try:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            finally:
                conn.close()
        except sqlite3.Error as error:  # the log stays whole; the next commit copies it
            self.error = error

    def wait(self) -> None:
        """Return once the copy is made (or given up on)."""
        self._thread.join()


def held_back(conn: sqlite3.Connection) -> int:
    """Stop ``conn``'s commits from copying the log into the index; return the setting to
    give back (:func:`given_back`)."""
    pages = int(conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    return pages


def given_back(conn: sqlite3.Connection, pages: int) -> None:
    """``conn``'s commits copy the log again past ``pages`` pages, as before :func:`held_back`."""
    conn.execute(f"PRAGMA wal_autocheckpoint = {int(pages)}")


def index_file(conn: sqlite3.Connection) -> Path:
    """The file of ``conn``'s main database."""
    return Path(conn.execute("PRAGMA database_list").fetchone()[2])
