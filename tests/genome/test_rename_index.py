"""The rename table is indexed by each name: the look-ups the edit hooks and the genome make
search it instead of scanning it, in a new index and in one migrated from before the indexes."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

from recall.file_names import earlier_names, later_name
from recall.genome import Genome
from recall.index.db import open_checked, schema_version
from recall.index.schema import SCHEMA_VERSION

from .gitrepo import GitRepo

INDEXES = {"genome_renames_old", "genome_renames_new"}


def _renamed(repo: GitRepo) -> GitRepo:
    """a.py → lib/a.py → lib/core.py; b.py stays."""
    repo.commit("start", "a.py", "b.py")
    repo.move("a.py", "lib/a.py")
    repo.commit("move a")
    repo.move("lib/a.py", "lib/core.py")
    repo.commit("rename it", "b.py")
    return repo


def _look_ups(conn: sqlite3.Connection, root: Path) -> list[str]:
    """The statements on the rename table that following names issues: an edit hook's (both
    ways) and a genome's, name by name; each as run, its values in place."""
    issued: list[str] = []
    conn.set_trace_callback(issued.append)
    try:
        assert earlier_names(conn, "lib/core.py") == ["lib/a.py", "a.py"]
        assert later_name(conn, "a.py") == "lib/core.py"
        genome = Genome(root, conn)
        assert genome.renamed_to("a.py") == "lib/core.py"
        assert genome.renamed_from("lib/core.py") == ["lib/a.py", "a.py"]
        assert genome.commits_touching("a.py", "2000-01-01") == 3
    finally:
        conn.set_trace_callback(None)
    return [s for s in issued if "genome_renames" in s]


SEARCHED = re.compile(r"SEARCH (TABLE )?genome_renames USING INDEX genome_renames_")
"""A search through one of the table's indexes (SQLite before 3.36 writes "SEARCH TABLE")."""


def _assert_searched(conn: sqlite3.Connection, statements: list[str]) -> None:
    """Each statement finds its rows through an index of the rename table, in commit order as
    stored (no scan of the table, no sort)."""
    assert {"old = ", "new = "} <= {c for s in statements for c in ("old = ", "new = ") if c in s}
    for statement in statements:
        plan = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}")]
        assert any(SEARCHED.match(step) for step in plan), (statement, plan)
        assert not any("SCAN" in step or "TEMP B-TREE" in step for step in plan), (statement, plan)


def _indexes(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'genome_renames'"
    )
    return {row[0] for row in rows}


def test_rename_look_ups_search_an_index(
    make_repo: Callable[[str], GitRepo], tmp_path: Path
) -> None:
    repo = _renamed(make_repo("repo"))
    conn, created = open_checked(tmp_path / "index.db")
    assert created
    try:
        Genome(repo.root, conn).refresh()
        assert _indexes(conn) == INDEXES
        _assert_searched(conn, _look_ups(conn, repo.root))
    finally:
        conn.close()


def test_an_index_from_before_is_migrated_and_its_genome_kept(
    make_repo: Callable[[str], GitRepo], tmp_path: Path
) -> None:
    repo = _renamed(make_repo("repo"))
    path = tmp_path / "index.db"
    conn, _ = open_checked(path)
    Genome(repo.root, conn).refresh()
    with conn:  # as the version before left it: no index on the renames
        for name in INDEXES:
            conn.execute(f"DROP INDEX {name}")
        conn.execute("DROP INDEX memories_summary_key")  # added by version 12
        conn.execute("ALTER TABLE memories DROP COLUMN summary_key")
        conn.execute("ALTER TABLE memories DROP COLUMN secret")  # added by version 9
        conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    conn.close()
    conn, created = open_checked(path)
    try:
        assert not created
        assert schema_version(conn) == SCHEMA_VERSION
        assert _indexes(conn) == INDEXES
        assert not Genome(repo.root, conn).is_stale()  # the history read before is kept
        _assert_searched(conn, _look_ups(conn, repo.root))
    finally:
        conn.close()


def test_an_index_from_before_without_a_genome_is_migrated(
    make_repo: Callable[[str], GitRepo], tmp_path: Path
) -> None:
    repo = _renamed(make_repo("repo"))
    path = tmp_path / "index.db"
    conn, _ = open_checked(path)
    with conn:  # never refreshed: no genome table at all
        conn.execute("DROP INDEX memories_summary_key")  # added by version 12
        conn.execute("ALTER TABLE memories DROP COLUMN summary_key")
        conn.execute("ALTER TABLE memories DROP COLUMN secret")  # added by version 9
        conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    conn.close()
    conn, _ = open_checked(path)
    try:
        assert schema_version(conn) == SCHEMA_VERSION
        assert _indexes(conn) == INDEXES  # on an empty table, until the genome makes its own
        assert earlier_names(conn, "lib/core.py") == []  # nothing read yet
        assert Genome(repo.root, conn).refresh().mode == "full"
        assert _indexes(conn) == INDEXES
        _assert_searched(conn, _look_ups(conn, repo.root))
    finally:
        conn.close()
