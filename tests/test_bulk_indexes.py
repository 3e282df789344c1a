"""A large batch into a small store builds the secondary indexes after its rows; a small one
keeps them up to date row by row. Either way the index ends the same, and a failed batch
leaves the indexes as they were."""

from __future__ import annotations

import sqlite3

import pytest
from conftest import remember

from recall.index import rows
from recall.store import MemoryStore

INDEXES = (
    "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
    "AND tbl_name IN ('memories', 'memory_files') ORDER BY name"
)


def test_a_batch_as_large_as_the_table_rebuilds_the_indexes() -> None:
    assert rows.REBUILD_INDEXES_FROM == 1.0


def _drafts(store: MemoryStore, count: int, tag: str) -> list:
    return [
        (
            store.prepare_memory(
                summary=f"{tag} note {n}", category="context", files=[f"src/f{n % 7}.c", "a.h"]
            ),
            None,
        )
        for n in range(count)
    ]


def _traced(store: MemoryStore) -> list[str]:
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    return statements


def test_bulk_import_builds_the_same_indexes_and_answers_from_them(store: MemoryStore) -> None:
    remember(store, "the first one")
    before = store.conn.execute(INDEXES).fetchall()
    statements = _traced(store)
    results = store.import_many(_drafts(store, 40, "big"))
    assert any(s.startswith("DROP INDEX") for s in statements)
    assert store.conn.execute(INDEXES).fetchall() == before
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    plan = " ".join(
        str(tuple(row))
        for row in store.conn.execute(
            "EXPLAIN QUERY PLAN SELECT memory_rowid FROM memory_files WHERE path = ?", ("a.h",)
        )
    )
    assert "memory_files_path" in plan
    on_a_h = store.conn.execute("SELECT count(*) FROM memory_files WHERE path = 'a.h'")
    assert on_a_h.fetchone()[0] == 40
    assert all(r.duplicate_of is None for r in results)


def test_a_small_batch_into_a_larger_store_keeps_the_indexes(store: MemoryStore) -> None:
    store.import_many(_drafts(store, 30, "base"))
    statements = _traced(store)
    store.import_many(_drafts(store, 5, "small"))
    assert not any(s.startswith("DROP INDEX") for s in statements)
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 35


def test_a_failed_batch_leaves_the_indexes(store: MemoryStore) -> None:
    remember(store, "the first one")
    before = store.conn.execute(INDEXES).fetchall()
    drafts = _drafts(store, 20, "doomed")
    conn = store.conn
    # the files rows fail after the indexes were dropped (as a full disk would)
    conn.execute(
        "CREATE TEMP TRIGGER fail_late BEFORE INSERT ON memory_files "
        "WHEN (SELECT count(*) FROM memory_files) > 30 BEGIN SELECT RAISE(ABORT, 'full'); END"
    )
    conn.execute("BEGIN IMMEDIATE")
    first = conn.execute("SELECT max(rowid) FROM memories").fetchone()[0] + 1
    statements = _traced(store)
    with pytest.raises(sqlite3.IntegrityError):
        rows.insert_many(
            conn,
            (
                (draft.with_changes(id=f"{n:08x}"), f"{n:08x}.md", _stat(n), "sha")
                for n, (draft, _wanted) in enumerate(drafts, start=first)
            ),
        )
    conn.execute("ROLLBACK")
    conn.execute("DROP TRIGGER fail_late")
    assert any(s.startswith("DROP INDEX") for s in statements)
    assert conn.execute(INDEXES).fetchall() == before


def _stat(n: int) -> object:
    from recall.memfiles import FileStat

    return FileStat(f"{n:08x}.md", 1, 1)


def _rows_by_id(store: MemoryStore) -> dict[str, tuple[object, ...]]:
    """Every column of each memory's row but its rowid, with its files rows, by id."""
    conn = store.conn
    names = [r[1] for r in conn.execute("PRAGMA table_info(memories)")]
    files: dict[int, list[str]] = {}
    for rowid, path in conn.execute("SELECT memory_rowid, path FROM memory_files ORDER BY rowid"):
        files.setdefault(rowid, []).append(path)
    found = {}
    for row in conn.execute("SELECT rowid, * FROM memories"):
        values = dict(zip(names, row[1:], strict=True))
        values.pop("rowid", None)  # rowids follow the order written, a rebuild's another
        values.pop("mtime_ns")  # a rebuild marks a file as new as the clock to be read again
        found[str(values["id"])] = (*values.values(), tuple(files.get(row[0], ())))
    return found


@pytest.mark.parametrize("threaded_from", [0, 10**9])
def test_a_bulk_import_indexes_what_a_rebuild_from_its_files_indexes(
    store: MemoryStore, threaded_from: int
) -> None:
    drafts = _drafts(store, 600, "bulk")  # three chunks, and a part of one
    drafts += [(store.prepare_memory(summary="no files", category="gotcha", files=[]), None)]
    store.import_many(drafts, write_behind_from=threaded_from)
    imported = _rows_by_id(store)
    store.reindex()
    assert _rows_by_id(store) == imported
    assert len(imported) == 601


@pytest.mark.parametrize("threaded_from", [0, 10**9])
def test_a_large_import_inserts_the_rows_of_written_files_as_it_goes(
    store: MemoryStore, threaded_from: int
) -> None:
    remember(store, "the first one")
    before = store.conn.execute(INDEXES).fetchall()
    statements = _traced(store)
    store.import_many(_drafts(store, 600, "bulk"), write_behind_from=threaded_from)
    texts = [n for n, s in enumerate(statements) if s.startswith("INSERT INTO fts_words")]
    memories = [n for n, s in enumerate(statements) if "INSERT INTO memories(" in s]
    dropped = [n for n, s in enumerate(statements) if s.startswith("DROP INDEX")]
    built = [n for n, s in enumerate(statements) if s.startswith("CREATE INDEX")]
    if threaded_from:  # files written at once: each chunk's rows go in with it
        assert texts[0] < memories[0] < texts[-1]
    # (on the writer's thread, how far it has come at each chunk varies from run to run)
    # the indexes dropped once, before the first row, and built once, after the last
    assert len(dropped) == len(built) == len(before)
    assert max(dropped) < memories[0] and memories[-1] < min(built)
    assert store.conn.execute(INDEXES).fetchall() == before
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 601
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
