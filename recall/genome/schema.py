"""The genome's tables in the index database, their version, and read and write transactions."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from typing import Final

from recall.genome.commit_times import TIMES_DDL
from recall.index.schema import GENOME_RENAMES_DDL

GENOME_SCHEMA: Final = "4"
SCHEMA_KEY: Final = "genome_schema"

TABLES: Final = (
    "genome_state",
    "genome_files",
    "genome_commits",
    "genome_times",
    "genome_renames",
    "genome_tree",
    "genome_symbol_files",
    "genome_symbols",
)

# genome_files: one row per file identity under its current (or last) name. ``commits``
# counts the commits small enough for co-change; ``seqs`` lists every commit that touched
# the file; ``near`` holds its co-change neighbours as (identity, shared commits) pairs,
# strongest first, so the neighbours of a file are one primary-key look-up.
# genome_renames: each rename (commit number, old name, new name), with an index by each name,
# is defined in recall.index.schema (GENOME_RENAMES_DDL), where a migration indexes older ones.
# genome_commits: ``nfiles`` is the commit's size as the bulk cap counts it (Tether's own files
# left out: recall.genome.history_index.commit_size).
# genome_symbol_files: each source file the symbol index reads, under its content key, and how
# it was read (tree-sitter, regex, skipped: why); genome_symbols: the definitions of each key
# (qualified name, its last part, kind, 1-based line range, body hash; see recall.genome.symbols).
# genome_times: the commits' times packed (recall.genome.commit_times), derived from
# genome_commits; an index made before it gets it at its next refresh, in schema 2.
# Schema 2 added the symbol index; schema 3 its ``flat`` hashes (Python's body hashes keep
# indentation and decorators since; rows of before would compare the old way); schema 4 the
# layout-blind body hashes, with every earlier form's in ``formers``. A version change drops
# and rebuilds every genome table.
# Integer lists are packed little-endian 32-bit (see recall.genome.packing).
KEY_LEAF_INDEX: Final = (
    "CREATE INDEX IF NOT EXISTS genome_symbols_key_leaf ON genome_symbols(key, leaf)"
)
"""A file's definitions of one last name part, found without reading the file's others: a
lookup by path and leaf (:func:`recall.genome.symbols.lookup.named_in`) read every definition
of the file through an index of the key alone, 5 ms a lookup in a file of 30,000 definitions.
Added to a genome of the current schema made before it at its next refresh (no rebuild), which
drops the index of the key alone that it covers."""

DDL: Final = (
    """
CREATE TABLE IF NOT EXISTS genome_state(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS genome_files(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    commits INTEGER NOT NULL,
    seqs BLOB NOT NULL,
    near BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS genome_commits(
    seq INTEGER PRIMARY KEY,
    sha TEXT NOT NULL,
    ts INTEGER NOT NULL,
    nfiles INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS genome_commits_sha ON genome_commits(sha);
"""
    + GENOME_RENAMES_DDL
    + """
CREATE TABLE IF NOT EXISTS genome_tree(
    path TEXT PRIMARY KEY,
    key TEXT,
    specs TEXT,
    skip TEXT,
    fan_in INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS genome_symbol_files(
    path TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    parser TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS genome_symbol_files_key ON genome_symbol_files(key);
CREATE TABLE IF NOT EXISTS genome_symbols(
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    leaf TEXT NOT NULL,
    kind TEXT NOT NULL,
    first_line INTEGER NOT NULL,
    last_line INTEGER NOT NULL,
    body TEXT NOT NULL,
    formers TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS genome_symbols_leaf ON genome_symbols(leaf);
"""
    + KEY_LEAF_INDEX
    + ";\n"
    + TIMES_DDL
    + ";\n"
)

SYMBOLS_STATE: Final = "symbols"
"""The state key a refresh that left the symbol index as it was sets to :data:`SYMBOLS_BEHIND`
(a short-lived process's refresh): the next refresh that reads symbols catches up."""
SYMBOLS_BEHIND: Final = "behind"


def schema_current(conn: sqlite3.Connection) -> bool:
    """Tell whether the genome tables exist at this code's schema version (read only)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
    except sqlite3.OperationalError:
        return False
    return row is not None and row[0] == GENOME_SCHEMA


def ensure_schema(conn: sqlite3.Connection) -> bool:
    """Create the genome tables, dropping them first when their version differs.

    Must run inside a write transaction. Returns True when the tables were (re)created
    empty, which forces a full rebuild.
    """
    conn.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)")
    if schema_current(conn):
        conn.execute(KEY_LEAF_INDEX)
        conn.execute("DROP INDEX IF EXISTS genome_symbols_key")
        return False
    for table in TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    for statement in DDL.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(
        "INSERT INTO meta(key, value) VALUES(?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (SCHEMA_KEY, GENOME_SCHEMA),
    )
    return True


def read_state(conn: sqlite3.Connection) -> dict[str, str]:
    """The genome's bookkeeping (last indexed commit, settings it was built with…)."""
    cur = conn.cursor()
    cur.row_factory = None
    try:
        return dict(cur.execute("SELECT key, value FROM genome_state"))
    except sqlite3.OperationalError:
        return {}


def write_state(conn: sqlite3.Connection, values: dict[str, str]) -> None:
    """Replace the genome's bookkeeping; the caller holds the write transaction."""
    conn.execute("DELETE FROM genome_state")
    conn.executemany("INSERT INTO genome_state(key, value) VALUES(?, ?)", values.items())


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """Hold the database write lock for the block; commit on success, roll back on error.

    Inside a transaction the caller already opened, a savepoint is used instead, so the
    caller keeps control of the outer commit.
    """
    if conn.in_transaction:
        conn.execute("SAVEPOINT genome_write")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK TO genome_write")
            conn.execute("RELEASE genome_write")
            raise
        conn.execute("RELEASE genome_write")
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
