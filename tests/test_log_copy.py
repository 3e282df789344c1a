"""A large import's write-ahead log is copied into the index on a connection of its own, not
at the end of its COMMIT: the index file holds every row once the store has finished the
import's writes (at the latest when it closes), and the writer's connection copies its log at
its commits again afterwards."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from conftest import run_tether

from recall.index import log_copy
from recall.store import MemoryStore


def _wal_db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t(x)")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the table in the file itself
    return conn


def _rows_in_file_alone(path: Path, tmp: Path) -> int:
    """The rows of ``t`` in the database file itself, its log left behind (as a copy of the
    file alone would hold them)."""
    alone = tmp / "alone.db"
    shutil.copyfile(path, alone)
    conn = sqlite3.connect(alone)
    try:
        return int(conn.execute("SELECT count(*) FROM t").fetchone()[0])
    finally:
        conn.close()


def test_a_commit_held_back_leaves_the_log_to_the_copy(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    conn = _wal_db(path)
    pages = log_copy.held_back(conn)
    assert pages == 1000  # SQLite's own
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO t VALUES(?)", [(b"x" * 4000,) for _ in range(2000)])
    conn.execute("COMMIT")
    assert _rows_in_file_alone(path, tmp_path) == 0  # in the log only
    log_copy.given_back(conn, pages)
    assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
    assert log_copy.index_file(conn) == path
    copy = log_copy.LogCopy(path)
    copy.wait()
    assert copy.error is None
    assert _rows_in_file_alone(path, tmp_path) == 2000
    conn.close()


def test_a_copy_that_cannot_be_made_is_said_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "not-a-database.db"
    path.write_bytes(b"this is not a database file " * 200)
    copy = log_copy.LogCopy(path)
    copy.wait()
    assert isinstance(copy.error, sqlite3.DatabaseError)


def test_a_large_import_leaves_its_rows_in_the_index_file_and_the_setting_as_it_was(
    store: MemoryStore, tmp_path: Path
) -> None:
    before = store.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    drafts = [
        (
            store.prepare_memory(
                summary=f"note {n} " + "word " * 200, category="context", files=["a.c"]
            ),
            None,
        )
        for n in range(300)
    ]
    results = store.import_many(drafts, write_behind_from=1)
    assert len(results) == 300
    store.finish_writes()  # the log's copy, left running while the caller reports
    assert store.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == before
    index = log_copy.index_file(store.conn)
    alone = tmp_path / "alone.db"
    shutil.copyfile(index, alone)
    conn = sqlite3.connect(alone)
    try:
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 300
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_a_store_closed_after_a_large_import_has_its_log_copied(
    store: MemoryStore, tmp_path: Path
) -> None:
    drafts = [
        (
            store.prepare_memory(
                summary=f"note {n} " + "word " * 200, category="context", files=[]
            ),
            None,
        )
        for n in range(300)
    ]
    store.import_many(drafts, write_behind_from=1)
    index = log_copy.index_file(store.conn)
    store.close()  # waits for what the import left running
    alone = tmp_path / "alone.db"
    shutil.copyfile(index, alone)
    conn = sqlite3.connect(alone)
    try:
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 300
    finally:
        conn.close()


def test_tether_import_ends_with_its_log_copied_into_the_index(tmp_path: Path, repo: Path) -> None:
    lines = tmp_path / "lines.jsonl"
    lines.write_text(
        "\n".join(
            json.dumps({"summary": f"note {n} " + "word " * 100, "category": "context"})
            for n in range(700)
        ),
        encoding="utf-8",
    )
    done = run_tether("import", str(lines), "--json", cwd=repo)
    assert done.code == 0, done.stderr
    alone = tmp_path / "alone.db"
    shutil.copyfile(repo / ".tether" / "index.db", alone)
    conn = sqlite3.connect(alone)
    try:
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 700
    finally:
        conn.close()
