"""Whether an index was made where it lies is told before anything runs on it.

Every connection Tether opens distrusts the schema of the database it opens (``trusted_schema``
off), so that what an index that came with the repository defines cannot run functions or
virtual tables SQLite does not know to be harmless.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from recall.index import db
from recall.store import MemoryStore
from tests.conftest import remember


def trusts_schema(conn: sqlite3.Connection) -> bool:
    """Whether ``conn`` lets its database's schema run functions not known to be harmless."""
    return bool(conn.execute("PRAGMA trusted_schema").fetchone()[0])


def test_every_connection_distrusts_the_schema(store: MemoryStore, tmp_path: Path) -> None:
    """The index a store opens, its in-memory copy, and every connection opened in the
    package go through the one opener that turns ``trusted_schema`` off."""
    remember(store, "a memory to index")
    assert not trusts_schema(store.conn)
    copy, problem = db.open_snapshot(store.location.index_path)
    try:
        assert problem is None
        assert not trusts_schema(copy)
    finally:
        copy.close()
    package = Path(db.__file__).parents[1]
    opening = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "sqlite3.connect(" in path.read_text(encoding="utf-8")
    ]
    assert opening == ["index/sqlite_open.py"]
