"""The per-user tables outlive an index rebuild (reindex, or an unusable index), and an index of
schema version 3 migrates to 4 with its counters intact."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from conftest import OpenStore, remember

from recall.index import keep
from recall.index.home import HOME_KEY
from recall.index.schema import FOLDER_STATE_KEYS, PER_USER_TABLES, SCHEMA_VERSION
from recall.index.sync import RACY_WINDOW_NS
from recall.lifecycle import cleanup
from recall.lifecycle.disuse import archived_by_disuse
from recall.policy.hints import HintLedger
from recall.store import MemoryStore

from .conftest import Clock, at, session_start, surface, usage_row


def lived_in(store: MemoryStore, clock: Clock) -> str:
    """A store with a disuse archive, sessions, hint state and a cleanup pass; the memory id."""
    memory = remember(store, "ignored for weeks", files=["src/app.py"])
    for day in range(0, 60, 10):
        surface(store, [memory], day)
    session_start(store, clock, 60, "session-a")
    HintLedger("session-a").mark_self_serve(store.conn)
    cleanup.record_pass(store.conn)
    return memory


def per_user_rows(store: MemoryStore) -> dict[str, list[tuple[object, ...]]]:
    conn = store.conn
    found: dict[str, list[tuple[object, ...]]] = {}
    for table in PER_USER_TABLES:
        exists = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
        if exists:
            found[table] = sorted(tuple(r) for r in conn.execute(f"SELECT * FROM {table}"))
    return found


def test_reindex_keeps_counters_sessions_and_the_disuse_archive(
    store: MemoryStore, clock: Clock
) -> None:
    memory = lived_in(store, clock)
    before = per_user_rows(store)
    assert before["usage"] and before["sessions"] and before["hint_sessions"]
    store.reindex()
    assert per_user_rows(store) == before
    assert archived_by_disuse(store.conn) == {memory: at(60)}
    assert cleanup.last_pass(store.conn) == at(60)


def test_an_unusable_index_is_rebuilt_with_its_per_user_tables(
    store: MemoryStore, clock: Clock, open_store: Callable[..., OpenStore]
) -> None:
    memory = lived_in(store, clock)
    before = per_user_rows(store)
    index = store.location.index_path
    store.close()
    with sqlite3.connect(index) as conn:  # an index from a future Tether: unusable here
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    rebuilt, notices = open_store()
    assert per_user_rows(rebuilt) == before
    assert len(notices) == 1 and "unusable" in notices[0]
    assert memory in archived_by_disuse(rebuilt.conn)


def test_version_3_index_migrates_with_its_counters(
    store: MemoryStore, clock: Clock, open_store: Callable[..., OpenStore]
) -> None:
    memory = remember(store, "shown before the upgrade", files=["src/app.py"])
    surface(store, [memory], 0)
    index = store.location.index_path
    store.close()
    with sqlite3.connect(index) as conn:  # back to what version 3 created
        conn.execute("ALTER TABLE usage DROP COLUMN archived_at")
        conn.execute("DROP TABLE lifecycle")
        conn.execute("DROP TABLE usage_days")
        conn.execute("DROP TABLE memory_anchors")
        conn.execute("ALTER TABLE memories DROP COLUMN anchors")
        conn.execute("ALTER TABLE memories DROP COLUMN guard")
        conn.execute("DROP INDEX memories_summary_key")  # added by version 12
        conn.execute("ALTER TABLE memories DROP COLUMN summary_key")
        conn.execute("ALTER TABLE memories DROP COLUMN secret")
        conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    upgraded, notices = open_store()
    conn = upgraded.conn
    assert notices == []
    version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    assert int(version) == SCHEMA_VERSION
    assert cleanup.last_pass(conn) is None
    row = usage_row(upgraded, memory)
    assert row is not None and row["surfaced"] == 1 and row["archived_at"] is None


def test_version_4_index_gains_per_day_counts_and_keeps_its_totals(
    store: MemoryStore, clock: Clock, open_store: Callable[..., OpenStore]
) -> None:
    memory = remember(store, "shown before the upgrade", files=["src/app.py"])
    surface(store, [memory], 0)
    index = store.location.index_path
    store.close()
    with sqlite3.connect(index) as conn:  # back to what version 4 created
        conn.execute("DROP TABLE usage_days")
        conn.execute("DROP TABLE memory_anchors")
        conn.execute("ALTER TABLE memories DROP COLUMN anchors")
        conn.execute("ALTER TABLE memories DROP COLUMN guard")
        conn.execute("DROP INDEX memories_summary_key")  # added by version 12
        conn.execute("ALTER TABLE memories DROP COLUMN summary_key")
        conn.execute("ALTER TABLE memories DROP COLUMN secret")
        conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    upgraded, notices = open_store()
    assert notices == []
    surface(upgraded, [memory], 1)
    assert usage_row(upgraded, memory)["surfaced"] == 2
    days = upgraded.conn.execute("SELECT day, surfaced FROM usage_days").fetchall()
    assert [tuple(row) for row in days] == [(at(1)[:10], 1)]


def test_version_5_index_reads_a_guard_and_anchors_written_by_hand_before_the_upgrade(
    store: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    memory = remember(store, "retries stay at three", files=["src/app.py"], category="decision")
    index = store.location.index_path
    path = store.path_of(memory)
    store.close()
    with sqlite3.connect(index) as conn:  # back to what version 5 created
        conn.execute("DROP TABLE memory_anchors")
        conn.execute("ALTER TABLE memories DROP COLUMN anchors")
        conn.execute("ALTER TABLE memories DROP COLUMN guard")
        conn.execute("DROP INDEX memories_summary_key")  # added by version 12
        conn.execute("ALTER TABLE memories DROP COLUMN summary_key")
        conn.execute("ALTER TABLE memories DROP COLUMN secret")
        conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    # Written by hand while version 5 ran, which kept both keys in the file only ...
    text = path.read_text(encoding="utf-8")
    added = "pinned: false\nguard: true\nanchors:\n  - src/app.py::retry\n"
    path.write_text(text.replace("pinned: false\n", added), encoding="utf-8")
    stat = path.stat()
    with sqlite3.connect(index) as conn:  # ... and indexed the file as unchanged
        conn.execute(
            "UPDATE memories SET mtime_ns = ?, size = ? WHERE id = ?",
            (stat.st_mtime_ns, stat.st_size, memory),
        )
    upgraded, notices = open_store()
    assert notices == []
    found = upgraded.get(memory)
    assert found.guard is True
    assert [a.to_dict()["symbol"] for a in found.anchors] == ["src/app.py::retry"]


def settle(store: MemoryStore, path: Path) -> None:
    """Date the memory file and its folder an hour back and wait out the folder's change time
    (dating it moved that), then sync twice: the folder's fingerprint and listing are saved,
    as for a folder left alone; the store is closed."""
    past = time.time() - 3600
    os.utime(path, (past, past))
    os.utime(path.parent, (past, past))
    settles = (path.parent.stat().st_ctime_ns + RACY_WINDOW_NS) / 1e9
    time.sleep(max(0.0, settles - time.time()) + 0.05)
    store.refresh()
    store.refresh()
    store.close()


def test_version_5_index_reads_every_file_again_even_from_a_settled_folder(
    store: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    # A folder last written long ago has its fingerprint and listing saved; the upgrade must
    # not let them vouch for the files it needs read again.
    memory = remember(store, "retries stay at three", files=["src/app.py"], category="decision")
    index = store.location.index_path
    path = store.path_of(memory)
    text = path.read_text(encoding="utf-8")
    added = "pinned: false\nguard: true\n"
    path.write_text(text.replace("pinned: false\n", added), encoding="utf-8")
    settle(store, path)
    with sqlite3.connect(index) as conn:  # back to what version 5 created, which had no guard
        saved = {row[0] for row in conn.execute("SELECT key FROM meta")}
        assert set(FOLDER_STATE_KEYS) <= saved
        conn.execute("DROP TABLE memory_anchors")
        conn.execute("ALTER TABLE memories DROP COLUMN anchors")
        conn.execute("ALTER TABLE memories DROP COLUMN guard")
        conn.execute("DROP INDEX memories_summary_key")  # added by version 12
        conn.execute("ALTER TABLE memories DROP COLUMN summary_key")
        conn.execute("ALTER TABLE memories DROP COLUMN secret")
        conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    upgraded, notices = open_store()
    assert notices == []
    assert upgraded.get(memory).guard is True
    stale = upgraded.conn.execute("SELECT count(*) FROM memories WHERE mtime_ns = -1")
    assert stale.fetchone()[0] == 0


def test_version_6_index_left_unread_by_its_first_upgrade_reads_every_file_again(
    store: MemoryStore, open_store: Callable[..., OpenStore]
) -> None:
    # The first upgrade to version 6 marked every row to be read again but kept the folder's
    # saved state, so a guard written by hand before it stayed unindexed: version 7 reads them.
    memory = remember(store, "retries stay at three", files=["src/app.py"], category="decision")
    path = store.path_of(memory)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("pinned: false\n", "pinned: false\nguard: true\n"), "utf-8")
    settle(store, path)
    with sqlite3.connect(store.location.index_path) as conn:  # as that upgrade left it
        saved = {row[0] for row in conn.execute("SELECT key FROM meta")}
        assert "folder_fingerprint" in saved
        conn.execute("UPDATE memories SET mtime_ns = -1, guard = 0")
        conn.execute("DROP INDEX memories_summary_key")  # added by version 12
        conn.execute("ALTER TABLE memories DROP COLUMN summary_key")
        conn.execute("ALTER TABLE memories DROP COLUMN secret")
        conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    upgraded, notices = open_store()
    assert notices == []
    assert upgraded.get(memory).guard is True
    stale = upgraded.conn.execute("SELECT count(*) FROM memories WHERE mtime_ns = -1")
    assert stale.fetchone()[0] == 0


def test_keep_skips_what_the_new_schema_cannot_take(store: MemoryStore, tmp_path) -> None:
    old = tmp_path / "old.db"
    with sqlite3.connect(old) as conn:
        conn.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
        conn.execute("INSERT INTO meta VALUES(?, ?)", (HOME_KEY, str(old.stat().st_ino)))
        conn.execute("CREATE TABLE usage(memory_id TEXT PRIMARY KEY, surfaced INTEGER, gone TEXT)")
        conn.execute("INSERT INTO usage VALUES('aaaaaaaa', 3, 'x'), ('bbbbbbbb', NULL, 'y')")
        conn.execute("CREATE TABLE sessions(id TEXT)")  # unreadable as the new sessions table
        conn.execute("INSERT INTO sessions VALUES(NULL)")
    kept = keep.save(old, store.folder.path)
    assert kept.refused is None
    assert [t.name for t in kept.tables] == ["usage", "sessions"]
    remember(store, "so the store exists")
    written = keep.restore(store.conn, kept.tables)
    assert written == 1  # bbbbbbbb breaks NOT NULL, the NULL session id too
    assert usage_row(store, "aaaaaaaa")["surfaced"] == 3
    assert keep.save(tmp_path / "missing.db", store.folder.path) == keep.Saved()


def test_a_rebuild_creates_the_tables_it_carries_from_its_own_definitions(
    store: MemoryStore, clock: Clock, open_store: Callable[..., OpenStore]
) -> None:
    # The definition an old file gives for a table is its own text: a hint table whose every
    # new session has read memory on its own, and a second statement after it, are not run.
    lived_in(store, clock)
    before = per_user_rows(store)
    index = store.location.index_path
    store.close()
    with sqlite3.connect(index) as conn:
        conn.execute("ALTER TABLE hint_sessions RENAME TO old_hints")
        conn.execute(
            "CREATE TABLE hint_sessions(session TEXT PRIMARY KEY, spent INTEGER NOT NULL "
            "DEFAULT 0, self_serve INTEGER NOT NULL DEFAULT 1, origin TEXT NOT NULL DEFAULT '', "
            "started TEXT NOT NULL, last_seen TEXT NOT NULL)"
        )
        conn.execute("INSERT INTO hint_sessions SELECT * FROM old_hints")
        conn.execute("DROP TABLE old_hints")
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(
            "UPDATE sqlite_master SET sql = sql || '; CREATE TRIGGER forge AFTER INSERT ON "
            "memories BEGIN UPDATE memories SET summary = ''FORGED''; END' "
            "WHERE name = 'hint_sessions'"
        )
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    rebuilt, notices = open_store()
    assert per_user_rows(rebuilt) == before  # the rows carried
    assert len(notices) == 1 and "without the counts" not in notices[0]
    tables = dict(rebuilt.conn.execute("SELECT name, sql FROM sqlite_master WHERE sql NOT NULL"))
    assert "self_serve INTEGER NOT NULL DEFAULT 0" in tables["hint_sessions"]
    assert "forge" not in tables
    HintLedger("session-b").mark_self_serve(rebuilt.conn)
    fresh = HintLedger("session-c").state(rebuilt.conn)
    assert not fresh.self_serve
