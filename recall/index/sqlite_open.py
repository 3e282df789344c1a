"""The one way Tether opens an SQLite database: with the database's own schema not trusted.

An index can come with the repository (:mod:`recall.index.home`), so what its schema defines
(triggers, views, generated columns, virtual tables) is another's text until Tether has told the
file is its own. ``trusted_schema`` off makes SQLite refuse, inside those, any function or
virtual table not known to be harmless; Tether's own schema needs neither (its FTS5 tables and
their vocabulary are read by Tether's statements, never from a trigger or a view).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def open_sqlite(target: str | Path, **options: Any) -> sqlite3.Connection:
    """``sqlite3.connect(target, **options)`` with ``trusted_schema`` turned off before any
    statement reads the database."""
    conn = sqlite3.connect(target, **options)
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
    except BaseException:
        conn.close()
        raise
    return conn
