"""Plain-tuple cursors for bulk reads leave the index connection's own rows as they are."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from recall.index.db import connect, tuples


def test_a_tuple_cursor_reads_tuples_and_the_connection_keeps_its_rows(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    try:
        conn.execute("CREATE TABLE t(a INTEGER, b TEXT)")
        conn.execute("INSERT INTO t VALUES (1, 'x')")
        plain = tuples(conn).execute("SELECT a, b FROM t").fetchone()
        assert type(plain) is tuple and plain == (1, "x")
        after = conn.execute("SELECT a, b FROM t").fetchone()
        assert isinstance(after, sqlite3.Row) and after["b"] == "x"
        assert isinstance(conn.cursor().execute("SELECT a FROM t").fetchone(), sqlite3.Row)
    finally:
        conn.close()
