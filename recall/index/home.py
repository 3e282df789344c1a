"""Telling an index Tether made in its place from one that came with the repository.

The index is derived and per user, and Tether reads what it holds as its own: a memory's row is
kept while its file's checksum still matches, so the summary, details, author and files in that
row are what every surface shows and what agents are given. A repository can carry an index too
(``git add -f`` past the store's ``.gitignore``, or an archive unpacked with it): its rows could
then say anything of the memory files beside it, and triggers in it would rewrite every memory
written later, all out of sight of anyone reading the files.

So an index records, when it is created, the inode of its file (:data:`HOME_KEY`): a file a
clone, a checkout or an unpacking writes has an inode of its own, which whoever made the file
could not know. An index whose file is not the one it was created as (or made before this was
recorded) is not used: it is rebuilt from the memory files. Its per-user tables (counts, sessions,
hint state, disuse archives) are not carried into the rebuild either, as they steer recall too;
only one that records nothing and lists the memory folder beside it, an earlier version's index
in place, keeps them (:mod:`recall.index.keep`). A rebuilt index is built beside the old one and
renamed into place, which keeps its inode; a repository copied elsewhere (``cp -r``, a backup
restored) is rebuilt once, its counts starting afresh.

That record is the first thing read of a file (:func:`first_look`), before any statement of
Tether's runs on it (switching it to WAL, migrating it, copying it), on a connection that does
not trust its schema (:mod:`recall.index.sqlite_open`); and it is read only from a ``meta`` that
is a plain table of Tether's two columns, so that reading it evaluates nothing the file defines
(a generated column would run its expression, a virtual table its module).
"""

from __future__ import annotations

import sqlite3
from typing import Final

HOME_KEY: Final = "file_inode"
"""The ``meta`` key holding the inode of the file the index was created as."""

NOT_MADE_HERE: Final = (
    "it was not made here: it came with the repository or was copied from elsewhere, and what "
    "it holds is not taken for what the memory files say"
)
"""Why an index whose file is not the one it was created as is not used (the rebuild's notice)."""

UNMARKED: Final = (
    "it does not say it was made here: an earlier version of Tether made it, or it came with "
    "the repository"
)
"""Why an index that records no file at all is not used (one made before the record was kept)."""

NOT_TETHERS: Final = (
    "its meta table is not the one Tether makes (a view, a virtual table, or other columns)"
)
"""Why an index whose ``meta`` could run something of the file's own when read is not used."""

NO_VERSION: Final = "the file holds tables but no Tether schema version"
"""Why a database with tables but no schema version of Tether's is not used as an index."""

_META_COLUMNS: Final = [("key", 0), ("value", 0)]
"""(name, hidden) of each column of Tether's ``meta``, as ``PRAGMA table_xinfo`` gives them."""


def record_home(conn: sqlite3.Connection) -> None:
    """Record the inode of the file ``conn`` opened (see :class:`recall.index.db.IndexConnection`)
    in its ``meta`` table, inside the caller's transaction; nothing for an index in memory."""
    identity = getattr(conn, "identity", None)
    if identity is not None:
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (HOME_KEY, str(identity[1]))
        )


def foreign(conn: sqlite3.Connection, identity: tuple[int, int] | None) -> str | None:
    """Why the index read through ``conn`` may not be used, it not having been created as its
    file, of ``identity`` (device, inode); None when it was, or ``identity`` is None (no file)."""
    if identity is None:
        return None
    if not plain_meta(conn):
        return NOT_TETHERS
    return _home_record(conn, identity)


def _home_record(conn: sqlite3.Connection, identity: tuple[int, int]) -> str | None:
    """Why the file of ``identity`` is not the one its plain ``meta`` says it was created as
    (:data:`UNMARKED` when it says none); None when it is."""
    found = conn.execute("SELECT value FROM meta WHERE key = ?", (HOME_KEY,)).fetchone()
    if found is None:
        return UNMARKED
    return None if found[0] == str(identity[1]) else NOT_MADE_HERE


def plain_meta(conn: sqlite3.Connection) -> bool:
    """Whether the ``meta`` read through ``conn`` is a stored table of Tether's two columns, so
    that reading it runs nothing its definition says (read from the schema alone)."""
    row = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if row is None or not row[0]:  # none, or a virtual table (which has no pages of its own)
        return False
    columns = [(r[1], r[6]) for r in conn.execute("PRAGMA table_xinfo(meta)")]
    return columns == _META_COLUMNS


def first_look(conn: sqlite3.Connection, identity: tuple[int, int] | None) -> str | None:
    """Why the database read through ``conn``, of ``identity``, may not be used as an index
    (:func:`foreign`, or it holds tables but no schema version of Tether's); None when it may,
    or has no tables yet (a new file, its tables made by :func:`recall.index.db.prepare`).

    The first thing read of a file: ``conn`` must not trust its schema
    (:func:`recall.index.sqlite_open.open_sqlite`). Raises ``sqlite3.Error`` when the file
    cannot be read.
    """
    tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if not tables:
        return None
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone() is None:
        return NO_VERSION
    if not plain_meta(conn):
        return NOT_TETHERS
    if conn.execute("SELECT 1 FROM meta WHERE key = 'schema_version'").fetchone() is None:
        return NO_VERSION
    return None if identity is None else _home_record(conn, identity)  # meta checked above
