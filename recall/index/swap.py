"""Putting a rebuilt index in place of the old one, losing nothing written to the old one.

A reindex builds the new index beside the old (:func:`build_path`), under the store's writer
lock, while other processes go on reading the old one and counting into it (surfacings, acted
counts, turns). :func:`swap_in` then, holding the old file's own SQLite write lock:

1. copies the per-user tables (:data:`~recall.index.schema.PER_USER_TABLES`) out of it into the
   new index: every count committed so far is in the copy, and none can be committed meanwhile
   (only from an index made where it lies, :mod:`recall.index.keep`: one that came with the
   repository starts the counts afresh);
2. moves the new file to the index path (its WAL and shared memory gone first, so no opener
   pairs the new file with the old one's WAL).

A counter that was waiting for that write lock gets it after the move, sees that its file is no
longer the one at the path (:func:`recall.index.db.write_transaction`) and writes into the new
file instead. Openers are held back by the swap lock for the few milliseconds of the move.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from recall.index import keep
from recall.index.db import (
    BUSY_TIMEOUT_MS,
    rollback,
    swap_guard,
    swap_lock_path,
    unlink_index_files,
)
from recall.index.sqlite_open import open_sqlite


def build_path(path: Path) -> Path:
    """Where the index for ``path`` is rebuilt before it is swapped in (ignored by git like
    every ``index.db-*`` file)."""
    return Path(f"{path}-rebuild")


def discard_build(path: Path) -> None:
    """Remove a rebuild of the index at ``path`` that will not be swapped in (an earlier
    reindex killed midway leaves one; the caller holds the writer lock)."""
    unlink_index_files(build_path(path))
    with contextlib.suppress(FileNotFoundError):  # only a reindex, under its lock, opens it
        os.unlink(swap_lock_path(build_path(path)))


def _lock_old(path: Path) -> sqlite3.Connection | None:
    """The old index at ``path`` opened with its write lock held, or None when there is none
    (or it is too damaged to open: then nothing can be counted into it either)."""
    if not path.exists():
        return None
    try:
        # mode=rw: never create a file at the path while the lock is held.
        old = open_sqlite(
            f"{path.absolute().as_uri()}?mode=rw",
            uri=True,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
        )
    except sqlite3.Error:
        return None
    try:
        old.execute("BEGIN IMMEDIATE")
    except sqlite3.Error:
        old.close()
        return None
    return old


def swap_in(path: Path, built: sqlite3.Connection, folder: Path) -> keep.Saved:
    """Carry the per-user tables of the index at ``path``, whose memory folder is ``folder``,
    into ``built`` (open on :func:`build_path`), close it and move it to ``path``; return what
    was carried (or why nothing was: :attr:`keep.Saved.refused`).

    The caller holds the store's writer lock. ``built`` is closed whatever happens; on an
    error the old index stays in place and the rebuild is removed.
    """
    source = build_path(path)
    try:
        with swap_guard(path, exclusive=True):
            old = _lock_old(path)
            try:
                # Read through a read-only connection of its own, while ``old`` (if the file
                # could be opened at all) holds the write lock: nothing is counted meanwhile.
                saved = keep.save(path, folder)
                keep.restore(built, saved.tables)
                _checkpoint_whole(built)
                built.close()
                for suffix in ("-wal", "-shm", "-journal"):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(f"{path}{suffix}")
                os.replace(source, path)
                _sync_folder(path.parent)
                discard_build(path)  # what is left of it: its swap lock
            finally:
                if old is not None:
                    rollback(old)
                    old.close()  # SQLite sees the file moved: it leaves the new WAL alone
    except BaseException:
        built.close()
        discard_build(path)
        raise
    return saved


def _checkpoint_whole(built: sqlite3.Connection) -> None:
    """Move everything the rebuild's WAL holds into its file: only the file is renamed."""
    busy, _logged, _moved = built.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        raise sqlite3.OperationalError("the rebuilt index could not be checkpointed; retry")


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (best effort: some file systems cannot sync a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
