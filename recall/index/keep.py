"""Carrying the per-user tables over a rebuild of the index.

Everything else in the index is rebuilt from the memory files; the per-user tables (how often a
memory was shown and acted on, sessions, hint state, disuse archive flags) exist nowhere else,
so a rebuild copies them out of the old file first and back into the new one before it syncs.

No SQL text the old file holds is run: a table the new index lacks is created from Tether's own
statement (:data:`~recall.index.schema.FIRST_USE_DDL`), never from the definition the old file's
``sqlite_master`` gives, which a file that came with the repository writes as it likes.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from recall.index.db import rollback
from recall.index.schema import FIRST_USE_DDL, PER_USER_TABLES


@dataclass(frozen=True)
class KeptTable:
    """One table's columns and rows, as read from the old index."""

    name: str
    columns: tuple[str, ...]
    rows: list[tuple[object, ...]]


def save(path: Path) -> list[KeptTable]:
    """The per-user tables of the index at ``path`` (best effort; nothing is written).

    A damaged file may still give some tables: each is read on its own and one that cannot be
    read is left behind, so damage elsewhere in the file costs only what it touched.
    """
    if not path.exists():
        return []
    try:
        conn = sqlite3.connect(path)
    except sqlite3.Error:
        return []
    try:
        return save_from(conn)
    finally:
        conn.close()


def save_from(conn: sqlite3.Connection) -> list[KeptTable]:
    """The per-user tables readable through ``conn`` (inside the caller's transaction, if any:
    a swap reads them while holding the old file's write lock)."""
    kept: list[KeptTable] = []
    for name in PER_USER_TABLES:
        try:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
            ).fetchone()
            if found is None:
                continue
            cursor = conn.execute(f'SELECT * FROM "{name}"')
            columns = tuple(d[0] for d in cursor.description)
            kept.append(KeptTable(name, columns, [tuple(r) for r in cursor.fetchall()]))
        except sqlite3.Error:
            continue
    return kept


def restore(conn: sqlite3.Connection, kept: list[KeptTable]) -> int:
    """Write kept tables into a freshly built index; return the rows written.

    A table the new index lacks is created from Tether's own statement for it (one it has none
    for is left out); columns the new schema dropped are left out, and rows that clash with the
    new schema's constraints are skipped.
    """
    written = 0
    if not kept:
        return 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table in kept:
            if not _ensure_table(conn, table.name):
                continue
            present = {r[1] for r in conn.execute(f'PRAGMA table_info("{table.name}")')}
            keep_at = [i for i, c in enumerate(table.columns) if c in present]
            if not keep_at:
                continue
            names = ", ".join(f'"{table.columns[i]}"' for i in keep_at)
            marks = ", ".join("?" * len(keep_at))
            statement = f'INSERT OR IGNORE INTO "{table.name}"({names}) VALUES({marks})'
            cursor = conn.executemany(statement, ([row[i] for i in keep_at] for row in table.rows))
            written += max(0, cursor.rowcount)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)  # not a second ROLLBACK after SQLite's own (a full disk): it would hide why
        raise
    return written


def _ensure_table(conn: sqlite3.Connection, name: str) -> bool:
    """Whether the table ``name`` is in the new index, created from our own statement if it
    is one created on first use; inside the caller's transaction."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    if exists is not None:
        return True
    ddl = FIRST_USE_DDL.get(name)
    if ddl is None:
        return False
    for statement in ddl.split(";"):
        if statement.strip():
            conn.execute(statement)
    return True
