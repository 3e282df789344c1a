"""Whether an index was made where it lies is told before anything runs on it.

An index committed with the repository is rebuilt from the memory files (see
``test_hostile_index_counts``); these tests check that nothing its schema defines runs before
that refusal: not a trigger fired by the migration of an older schema in the in-memory copy a
read-only store serves, not a generated column read while its schema version is looked up, and
that the refused file is not even switched to WAL. Every connection Tether opens distrusts the
schema of the database it opens (``trusted_schema`` off).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from recall.index import db, snapshot
from recall.index.home import NOT_MADE_HERE, NOT_TETHERS
from recall.store import MemoryStore
from tests.conftest import remember
from tests.reliability.procs import make_read_only, make_writable, run_cli, tree, unprivileged
from tests.reliability.test_hostile_index_counts import (
    SUMMARY,
    index_of,
    remember_gotcha,
    run_sql,
)
from tests.reliability.test_hostile_repo import publish_and_clone

PLANTED = "PLANTED TRIGGER RAN"
MIGRATION_TRIGGER = (
    # The step from version 7 only creates what is missing, then sets the version in meta:
    # the trigger fires there, inside the migration of the copy.
    "UPDATE meta SET value = '7' WHERE key = 'schema_version';"
    "CREATE TRIGGER planted AFTER UPDATE ON meta BEGIN "
    f"SELECT RAISE(ABORT, '{PLANTED}'); END;"
)
GENERATED_META = (
    # meta's stored columns stay as they were; its value becomes an expression run when read.
    "PRAGMA journal_mode = DELETE;"
    "PRAGMA writable_schema = ON;"
    "UPDATE sqlite_master SET sql = 'CREATE TABLE meta(key TEXT PRIMARY KEY, raw TEXT, "
    "value TEXT GENERATED ALWAYS AS (abs(-9223372036854775807 - 1)))' WHERE name = 'meta';"
)


def planted_clone(tmp_path: Path, script: str) -> Path:
    """A clone of a repository that committed its index with ``script`` run on it."""

    def shape(root: Path) -> None:
        remember_gotcha(root)
        run_sql(root, script)

    return publish_and_clone(tmp_path, shape)


def test_a_read_only_store_refuses_a_committed_index_before_migrating_it(tmp_path: Path) -> None:
    """A read-only clone whose committed index has an older schema version and a trigger on
    meta: the copy it serves is rebuilt from the memory files, saying the index was not made
    here, and the trigger never runs (before, the migration of the copy fired it)."""
    clone = planted_clone(tmp_path, MIGRATION_TRIGGER)
    tether = clone / ".tether"
    make_read_only([tether, *tether.rglob("*")])
    try:
        before = tree(tether)
        done = run_cli(clone, "recall", "-f", "src/app.py", prefix=unprivileged())
        assert done.returncode == 0, done.stderr
        assert "read-only store" in done.stderr
        assert PLANTED not in done.stderr
        assert f"index {index_of(clone)} could not be read ({NOT_MADE_HERE})" in done.stderr
        assert SUMMARY in done.stdout
        assert tree(tether) == before
    finally:
        make_writable(tether)


def test_a_committed_meta_with_a_generated_value_is_refused_unread(tmp_path: Path) -> None:
    """A committed index whose meta value is a generated column: the clone's first recall
    rebuilds the index saying its meta is not Tether's, without reading the column (whose
    expression fails when run), and recalls the gotcha."""
    clone = planted_clone(tmp_path, GENERATED_META)
    done = run_cli(clone, "recall", "-f", "src/app.py")
    assert done.returncode == 0, done.stderr
    assert "integer overflow" not in done.stderr
    assert f"index {index_of(clone)} was unusable ({NOT_TETHERS})" in done.stderr
    assert SUMMARY in done.stdout


def test_a_foreign_index_is_refused_without_a_byte_written(tmp_path: Path) -> None:
    """An index copied from elsewhere (another inode) in rollback-journal mode: opening it
    refuses it as not made here and leaves the file as it was, not switched to WAL."""
    made = tmp_path / "made.db"
    conn, _ = db.open_checked(made)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    copied = tmp_path / "index.db"
    shutil.copyfile(made, copied)
    before = copied.read_bytes()
    try:
        db.open_checked(copied)
    except db.IndexUnusable as error:
        assert str(error) == NOT_MADE_HERE
    else:
        raise AssertionError("a copied index was opened")
    assert copied.read_bytes() == before
    assert not (tmp_path / "index.db-wal").exists()


def trusts_schema(conn: sqlite3.Connection) -> bool:
    """Whether ``conn`` lets its database's schema run functions not known to be harmless."""
    return bool(conn.execute("PRAGMA trusted_schema").fetchone()[0])


def test_every_connection_distrusts_the_schema(store: MemoryStore, tmp_path: Path) -> None:
    """The index a store opens, its in-memory copy, and every connection opened in the
    package go through the one opener that turns ``trusted_schema`` off."""
    remember(store, "a memory to index")
    assert not trusts_schema(store.conn)
    copy, problem = snapshot.open_snapshot(store.location.index_path)
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
