"""An in-memory copy of the index, for a store that cannot write it (a read-only checkout, mount
or file system, or a full disk) or whose index another writer holds past the caller's wait.

The file is told to be the index made where it lies (:func:`recall.index.home.first_look`)
before it is copied and before anything of Tether's runs on the copy (an older schema is
migrated in memory, and a migration's writes would fire triggers the file defines); one that
came with the repository is not copied at all.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from recall.index.db import (
    IndexUnusable,
    file_identity,
    is_full_error,
    is_read_only_error,
    prepare,
)
from recall.index.home import first_look
from recall.index.sqlite_open import open_sqlite


def _memory() -> sqlite3.Connection:
    conn = open_sqlite(":memory:", isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def _open_for_reading(path: Path, timeout: float) -> sqlite3.Connection:
    """The index opened without writing anything next to it.

    ``mode=ro`` reads a WAL database when its -wal and -shm files exist or can be created;
    in a read-only folder without them, or on a full disk, only ``immutable=1`` opens it. A
    cleanly closed index has no -wal file, so nothing is missed; rows left in a -wal file
    by a crash are, and the sync with the memory files makes up for them.
    """
    uri = path.absolute().as_uri()
    try:
        conn = open_sqlite(f"{uri}?mode=ro", uri=True, isolation_level=None, timeout=timeout)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except BaseException:
            conn.close()
            raise
        return conn
    except sqlite3.OperationalError as error:
        if not (is_read_only_error(error) or is_full_error(error)):
            raise
    return open_sqlite(f"{uri}?immutable=1", uri=True, isolation_level=None, timeout=timeout)


def open_snapshot(
    path: Path,
    timeout: float = 5.0,  # sqlite3's own default
) -> tuple[sqlite3.Connection, str | None]:
    """An in-memory copy of the index for a store that cannot write it; nothing on disk changes.

    Everything a read does as a side effect (sync with the files, vectors, the genome cache,
    usage and hint counters) lands in the copy and is gone when it closes. Returns the copy
    and, when the file could not be used, why: the copy is then empty, to be filled from the
    memory files. ``timeout``: seconds to wait for another connection's lock on the file.
    """
    conn = _memory()
    if not path.exists():
        prepare(conn)
        return conn, None
    problem: str | None = None
    try:
        identity, source = file_identity(path), _open_for_reading(path, timeout)
        try:
            if why := first_look(source, identity):  # before the copy, and its migration
                raise IndexUnusable(why)
            source.backup(conn)
        finally:
            source.close()
        prepare(conn)  # an older schema is migrated in memory
    except (IndexUnusable, sqlite3.DatabaseError) as error:
        problem = str(error)
        conn.close()
        conn = _memory()
        prepare(conn)
    return conn, problem
