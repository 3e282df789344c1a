"""Carrying the per-user tables over a rebuild of the index.

Everything else in the index is rebuilt from the memory files; the per-user tables (how often a
memory was shown and acted on, sessions, hint state, disuse archive flags) exist nowhere else,
so a rebuild copies them out of the old file first and back into the new one before it syncs.

They are carried only from an index made where it lies. They steer what recall shows (a memory
shown again and again and never acted on ranks lower, then steps aside, archived by disuse;
spent hint budgets silence hints), and an index that came with the repository (committed past
``.gitignore``, unpacked from an archive) or was copied from elsewhere could say anything in
them. So:

- an index that records the inode it was created as (:mod:`recall.index.home`) carries them
  while it is still that file; a clone's, an archive's or a copy's file is not, and the rebuild
  starts the counts afresh (a ``cp -r`` of one's own repository loses them once);
- one that records none (made by an earlier version of Tether, or planted without the record)
  carries them only when the memory folder its saved listing was taken of
  (:func:`recall.index.listing.listed_folder`) is, by device and inode, the memory folder it
  serves now: an earlier version kept that listing of the folder beside it, and a folder a
  clone or an unpacking creates has an inode nobody could write into a file beforehand. Whether
  git tracks the file, who owns it, or whether the store's ``.gitignore`` covers it would not
  tell: an unpacked archive is tracked by nothing, its files are the user's like any others,
  and the ignore file is the repository's own text. An upgraded index that kept no listing (its
  last command wrote a memory moments before the upgrade) starts its counts afresh too.

The old file is opened read-only, its schema not trusted (``trusted_schema`` off: a function
its schema names runs only if SQLite deems it harmless), and no SQL text it holds is run: a
table the new index lacks is created from Tether's own statement
(:data:`~recall.index.schema.FIRST_USE_DDL`), never from the definition the old file's
``sqlite_master`` gives. (Python 3.11's ``sqlite3`` cannot set ``SQLITE_DBCONFIG_DEFENSIVE``;
what that flag refuses, writes to the schema itself, needs ``writable_schema``, which nothing
here turns on, on a connection that cannot write.)
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from recall.index.db import file_identity, rollback
from recall.index.home import NOT_MADE_HERE, NOT_TETHERS, UNMARKED, foreign
from recall.index.listing import listed_folder
from recall.index.schema import FIRST_USE_DDL, PER_USER_TABLES
from recall.index.sqlite_open import open_sqlite

COUNTS: Final = (
    "how often each memory was shown and acted on, sessions, hint state, archives by disuse"
)
"""What the per-user tables hold, as a notice names them."""

_NOT_CARRIED: Final = {
    NOT_MADE_HERE: "they are carried only from an index made where it lies",
    UNMARKED: "nothing in it shows that it was made beside these memory files",
    NOT_TETHERS: "its meta table is not the one Tether makes",
}
_UNREADABLE: Final = "it could not be read to tell where it was made"


@dataclass(frozen=True)
class KeptTable:
    """One table's columns and rows, as read from the old index."""

    name: str
    columns: tuple[str, ...]
    rows: list[tuple[object, ...]]


@dataclass(frozen=True)
class Saved:
    """What a rebuild carries from the old index."""

    tables: list[KeptTable] = field(default_factory=list)
    refused: str | None = None
    """Why the old index's tables were left unread (it does not show it was made where it
    lies); None when they were read, or there was no old index."""

    def not_carried(self, also: str = "") -> str:
        """What a rebuild's notice adds when the counts were not carried ('' when they were);
        ``also`` names what else was left behind for the same reason."""
        if self.refused is None:
            return ""
        return f", without the counts kept in it ({COUNTS}){also}: {self.refused}"


def open_defensively(path: Path) -> sqlite3.Connection:
    """The index at ``path`` opened read-only, its schema not trusted to run functions with
    side effects; raises ``sqlite3.Error`` when it cannot be opened."""
    conn = open_sqlite(f"{path.absolute().as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA cell_size_check = ON")  # damage found as it is read, not trusted
    except BaseException:
        conn.close()
        raise
    return conn


def save(path: Path, folder: Path) -> Saved:
    """The per-user tables of the index at ``path``, whose memory folder is ``folder``, that a
    rebuild may carry (best effort; nothing is written).

    Tables of an index not made where it lies are left unread (:attr:`Saved.refused` says why).
    A damaged file may still give some tables: each is read on its own and one that cannot be
    read is left behind, so damage elsewhere in the file costs only what it touched; damage to
    the record of where it was made costs them all.
    """
    conn, refused = open_made_here(path, folder)
    if conn is None:
        return Saved(refused=refused)
    try:
        return Saved(save_from(conn))
    finally:
        conn.close()


def open_made_here(path: Path, folder: Path) -> tuple[sqlite3.Connection | None, str | None]:
    """The index at ``path``, whose memory folder is ``folder``, opened defensively
    (:func:`open_defensively`) when what it holds beyond the memory files may be carried into
    a rebuild, as (connection, None); otherwise (None, why not), or (None, None) when there is
    no file. The caller closes the connection."""
    identity = file_identity(path)
    if identity is None:
        return None, None
    try:
        conn = open_defensively(path)
    except sqlite3.Error:
        return None, _UNREADABLE
    try:
        refused = _why_not_carried(conn, identity, folder)
        if refused is None and file_identity(path) != identity:  # replaced while it was read
            refused = _UNREADABLE
    except BaseException:
        conn.close()
        raise
    if refused is not None:
        conn.close()
        return None, refused
    return conn, None


def _why_not_carried(
    conn: sqlite3.Connection, identity: tuple[int, int], folder: Path
) -> str | None:
    """Why the tables of the index read through ``conn`` (its file of ``identity``) may not be
    carried into a rebuild serving ``folder``; None when they may."""
    try:
        why = foreign(conn, identity)
        if why == UNMARKED and listed_folder(conn) == file_identity(folder):
            return None  # an earlier version's index, of the folder beside it
    except sqlite3.Error:
        return _UNREADABLE
    return None if why is None else _NOT_CARRIED.get(why, _UNREADABLE)


def save_from(conn: sqlite3.Connection) -> list[KeptTable]:
    """The per-user tables readable through ``conn`` (the caller has decided they may be
    carried)."""
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
