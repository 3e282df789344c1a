"""The guard ledger's upkeep on a real SQLite index file: asks nobody answered are pruned after
a while, and a ledger from before ask times is migrated without losing another hook's rows."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from recall.hooks.guarded import ASKED_KEEP_DAYS, record_allowed, record_asked
from recall.model import Memory

GUARD = Memory("a1b2c3d4", "decision", "keep the save order", guard=True)


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=5, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    return conn


def asked_rows(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    return {(r[0], r[1]) for r in conn.execute("SELECT session, path FROM guard_asked")}


def test_asks_nobody_answered_are_kept_a_day() -> None:
    assert ASKED_KEEP_DAYS == 1


def test_asks_older_than_the_keep_are_pruned_whatever_their_session(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    record_asked(conn, "refused", "a.py", [GUARD], "toolu_1")
    record_asked(conn, "refused", "b.py", [GUARD], "toolu_2")
    old = int(time.time()) - ASKED_KEEP_DAYS * 86_400 - 60
    conn.execute("UPDATE guard_asked SET asked = ? WHERE path = 'a.py'", (old,))
    record_asked(conn, "other", "c.py", [GUARD], "toolu_3")
    assert asked_rows(conn) == {("refused", "b.py"), ("other", "c.py")}


def test_a_migration_under_way_elsewhere_keeps_its_new_rows(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    old = connect(path)
    old.execute(
        "CREATE TABLE guard_asked(session TEXT NOT NULL, memory_id TEXT NOT NULL, "
        "path TEXT NOT NULL, tool_use TEXT NOT NULL DEFAULT '', "
        "PRIMARY KEY(session, path, tool_use, memory_id)) WITHOUT ROWID"
    )
    first = connect(path)  # a hook that migrated the table and asked, not committed yet
    first.execute("BEGIN IMMEDIATE")
    first.execute("DROP TABLE guard_asked")
    first.execute(
        "CREATE TABLE guard_asked(session TEXT NOT NULL, memory_id TEXT NOT NULL, "
        "path TEXT NOT NULL, tool_use TEXT NOT NULL DEFAULT '', "
        "asked INTEGER NOT NULL DEFAULT 0, "
        "PRIMARY KEY(session, path, tool_use, memory_id)) WITHOUT ROWID"
    )
    first.execute(
        "INSERT INTO guard_asked VALUES('first', ?, 'a.py', 'toolu_1', ?)",
        (GUARD.id, int(time.time())),
    )
    errors: list[BaseException] = []

    def allow() -> None:
        try:
            record_allowed(connect(path), "second", "b.py")
        except BaseException as error:
            errors.append(error)

    second = threading.Thread(target=allow)
    second.start()  # another hook reads the old schema, then waits for the write lock
    time.sleep(0.5)
    first.execute("COMMIT")
    second.join()
    assert errors == []
    assert asked_rows(old) == {("first", "a.py")}
