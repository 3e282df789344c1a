"""Carrying the genome over a rebuild of the index (``tether reindex``, or a store replacing an
index it found unusable, :mod:`recall.store.recovery`).

A rebuild makes the memory tables again from the memory files. The genome (history, renames,
the tree, symbols) comes from git, not from them, and reading it again takes as long as the
first ``tether index``; so the rebuild copies it from the old index, whole or not at all: one
consistent read of every genome table, or none of them (a genome short of a table would say
it is up to date while it is not). It is copied only from an index made where it lies
(:func:`recall.index.keep.open_made_here`), as the per-user tables are: the body hashes in it
decide whether guarded code changed, and one that came with the repository could say anything.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from recall.genome.schema import GENOME_SCHEMA, SCHEMA_KEY, TABLES, ensure_schema
from recall.genome.schema import write_transaction as genome_write
from recall.index.keep import Saved, open_defensively, open_made_here

LEFT_BEHIND: Final = (
    "its code map (git history, renames, symbols; `tether index` reads it again from git)"
)
"""What a rebuild's notice names when it left the code map behind, and how to get it back."""


def left_behind(saved: Saved, code_map_left: str | None) -> str:
    """What a rebuild's notice adds for what it left behind of the old index: its counts
    (``saved``, :mod:`recall.index.keep`) and its code map (``code_map_left``, from
    :func:`carry`); '' when both were carried (or there were none)."""
    if saved.refused is not None:  # then the code map was refused for the same reason
        return saved.not_carried("" if code_map_left is None else f" nor {LEFT_BEHIND}")
    return "" if code_map_left is None else f" without {LEFT_BEHIND}: {code_map_left}"


class _OldUnreadable(Exception):
    """A genome table of the old index could not be read (the file is damaged)."""


def carry(path: Path, folder: Path, built: sqlite3.Connection) -> str | None:
    """Copy the genome of the index at ``path``, serving the memory folder ``folder``, into
    ``built`` (its rebuild); return why a genome it held was left behind, None when it was
    copied or there was none. An error writing ``built`` is raised, not returned."""
    old, refused = open_made_here(path, folder)
    if old is None:
        return refused if refused is not None and _may_hold_genome(path) else None
    try:
        return _copy(old, built)
    finally:
        old.close()  # its read transaction ends with it


def _may_hold_genome(path: Path) -> bool:
    """Whether the index at ``path`` has genome tables, or cannot be read to tell (its names
    of tables only are read: nothing its schema defines runs)."""
    try:
        conn = open_defensively(path)
    except sqlite3.Error:
        return True
    try:
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLES[0],)
        ).fetchone()
    except sqlite3.Error:
        return True
    finally:
        conn.close()
    return found is not None


def _copy(old: sqlite3.Connection, built: sqlite3.Connection) -> str | None:
    """Copy every genome table read through ``old`` (one read transaction) into ``built``."""
    try:
        old.execute("BEGIN")  # one snapshot: a refresh committing meanwhile is not half-read
        version = old.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
        if version is None or version[0] != GENOME_SCHEMA:
            return None  # none, or one the next refresh would drop and build again anyway
        present = {
            row[0] for row in old.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    except sqlite3.Error as error:
        return f"it could not be read ({error})"
    missing = [table for table in TABLES if table not in present]
    if missing:
        return f"it has no {missing[0]} table"
    try:
        with genome_write(built):
            ensure_schema(built)
            for table in TABLES:
                _copy_table(old, built, table)
    except _OldUnreadable as error:
        return f"it could not be read ({error})"
    return None


def _copy_table(old: sqlite3.Connection, built: sqlite3.Connection, table: str) -> None:
    """Copy ``table``'s rows, in their stored order, into the same (empty) table of ``built``;
    the columns are the rebuild's own, read by name from the old table."""
    columns = [row[1] for row in built.execute(f'PRAGMA table_info("{table}")')]
    names = ", ".join(f'"{column}"' for column in columns)
    marks = ", ".join("?" * len(columns))
    try:
        built.execute(f'SELECT rowid FROM "{table}" LIMIT 0')
        order = " ORDER BY rowid"  # rows of one commit are read back in the order written
    except sqlite3.OperationalError:
        order = ""  # WITHOUT ROWID: ordered by its key
    rows = _read(old, f'SELECT {names} FROM "{table}"{order}')
    built.executemany(f'INSERT INTO "{table}"({names}) VALUES({marks})', rows)


def _read(old: sqlite3.Connection, query: str) -> Iterator[tuple[object, ...]]:
    """The rows of ``query`` on the old index, one at a time; a failure to read them raised
    as :class:`_OldUnreadable`, told apart from a failure to write the rebuild."""
    try:
        cursor = old.execute(query)
        cursor.row_factory = None
        yield from cursor
    except sqlite3.Error as error:
        raise _OldUnreadable(str(error)) from None
