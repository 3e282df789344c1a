"""Semantic vectors of memories: computed once per memory, cached as one matrix per index state."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from recall.index.db import is_unwritable_error, rollback
from recall.ranking.embedding import Embedder, prepare_matrix, stack_bytes
from recall.ranking.vector_blobs import pack_rows
from recall.ranking.vector_cache import cache_paths, cache_stamp, complete_stamp, vectors_complete

BATCH = 2000  # rows embedded and written per transaction while back-filling
ATTEMPTS = 3  # back-fills raced by writers before ranking from the vectors there are
RECALL_COMPUTE_MAX = 2000
"""Memories without a vector that a recall embeds in memory (about a second's work here);
past it, they wait for the next write or a reindex rather than stall every recall."""
PROGRESS_LABEL = "computing vectors"

Progress = Callable[[str, int, int | None], None]


def memory_text(summary: str, details: str, files: str) -> str:
    """What a memory's vector is computed from: its words and the names of its files."""
    return f"{summary}\n{details}\n{files}"


_MISSING = (
    "SELECT m.rowid, m.summary, m.details, m.files FROM memories m "
    "LEFT JOIN vectors v ON v.memory_rowid = m.rowid "
    "WHERE v.memory_rowid IS NULL OR v.model != ?"
)


def backfill(conn: sqlite3.Connection, embedder: Embedder, progress: Progress | None = None) -> int:
    """Compute vectors for memories that have none (or one from another model); return how many.

    Called by the writers (remember, import, reindex), in batches, so that recall finds them
    made. Free when nothing changed since the last backfill (one row of ``meta`` says so).
    ``progress(description, done, total)`` hears of each batch.
    """
    if vectors_complete(conn, embedder.name):
        return 0
    stamp = complete_stamp(conn, embedder.name)
    missing = conn.execute(_MISSING, (embedder.name,)).fetchall()
    for start in range(0, len(missing), BATCH):
        if progress is not None:
            progress(PROGRESS_LABEL, start, len(missing))
        chunk = missing[start : start + BATCH]
        matrix = embedder.embed_many([memory_text(r[1], r[2], r[3]) for r in chunk])
        conn.execute("BEGIN IMMEDIATE")
        try:
            made = [(r[0], blob) for r, blob in zip(chunk, pack_rows(matrix), strict=True)]
            insert_vectors(conn, embedder.name, made)
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('vectors_complete', ?)", (stamp,))
    if progress is not None and missing:
        progress(PROGRESS_LABEL, len(missing), len(missing))
    return len(missing)


def store_new(
    conn: sqlite3.Connection,
    embedder: Embedder,
    new: Sequence[tuple[int, str, str, str]],
    progress: Progress | None = None,
) -> None:
    """Embed and store the vectors of memories just inserted, inside the caller's transaction
    (``new``: rowid, summary, details and the files column as stored), so that a bulk write
    makes its vectors in the same pass as its rows. The index is marked complete when no
    memory is left without a vector from ``embedder``; otherwise :func:`backfill` adds the
    rest (older memories, another model's).
    """
    if progress is not None:
        progress(PROGRESS_LABEL, 0, len(new))
    for start in range(0, len(new), BATCH):
        chunk = new[start : start + BATCH]
        store_vectors(conn, embedder, chunk)
        if progress is not None:
            progress(PROGRESS_LABEL, start + len(chunk), len(new))
    mark_complete(conn, embedder)


def store_vectors(
    conn: sqlite3.Connection, embedder: Embedder, new: Sequence[tuple[int, str, str, str]]
) -> list[tuple[int, bytes]]:
    """Embed and store the vectors of ``new`` (rowid, summary, details, files column) in the
    caller's transaction; their ``memories`` rows may come later in it. Return what was
    stored, (rowid, stored form)."""
    matrix = embedder.embed_many([memory_text(r[1], r[2], r[3]) for r in new])
    made = [(r[0], blob) for r, blob in zip(new, pack_rows(matrix), strict=True)]
    insert_vectors(conn, embedder.name, made)
    return made


def insert_vectors(conn: sqlite3.Connection, model: str, made: Iterable[tuple[int, bytes]]) -> None:
    """Store vectors made by ``model`` (rowid, stored form) in the caller's transaction,
    replacing those the memories had."""
    conn.executemany(
        "INSERT OR REPLACE INTO vectors(memory_rowid, model, vec) VALUES(?, ?, ?)",
        [(rowid, model, blob) for rowid, blob in made],
    )


def mark_complete(conn: sqlite3.Connection, embedder: Embedder) -> None:
    """After a write stored vectors with its rows: mark the index complete if no memory is
    left without a vector from ``embedder``."""
    if conn.execute(_MISSING + " LIMIT 1", (embedder.name,)).fetchone() is None:
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES('vectors_complete', ?)",
            (complete_stamp(conn, embedder.name),),
        )


def for_recall(
    conn: sqlite3.Connection,
    embedder: Embedder,
    cache_dir: Path | None,
    *,
    dir_mode: int = 0o755,
    file_mode: int = 0o644,
) -> tuple[np.ndarray, np.ndarray, int]:
    """(rowids, matrix, memories left out) for ranking, never writing a vector.

    Vectors are made when memories are written (:func:`backfill`). Memories that still have
    none from ``embedder`` (written by a version or a path that did not make them, or from
    another model) get one computed here in memory, up to :data:`RECALL_COMPUTE_MAX`; past
    that they are left out of the semantic channel (the count says how many) until the next
    write or ``tether reindex`` makes them. Only the cache of a complete state is written.
    """
    stamp, complete, cached, found = _snapshot(conn, embedder, cache_dir)
    if cached is not None:
        return cached[0], cached[1], 0
    blobs = {int(r[0]): r[1] for r in found}
    left_out = 0
    if not complete:
        missing = conn.execute(_MISSING, (embedder.name,)).fetchall()
        if len(missing) > RECALL_COMPUTE_MAX:
            left_out = len(missing)
        elif missing:
            made = embedder.embed_many([memory_text(r[1], r[2], r[3]) for r in missing])
            blobs.update((int(r[0]), b) for r, b in zip(missing, pack_rows(made), strict=True))
    ordered = sorted(blobs)
    rowids = np.fromiter(ordered, dtype=np.int64, count=len(ordered))
    matrix = stack_bytes([blobs[rowid] for rowid in ordered], embedder.dim)
    if complete and cache_dir is not None:
        write_cache(cache_dir, stamp, rowids, matrix, dir_mode=dir_mode, file_mode=file_mode)
    return rowids, matrix, left_out


def load(
    conn: sqlite3.Connection,
    embedder: Embedder,
    cache_dir: Path | None,
    *,
    dir_mode: int = 0o755,
    file_mode: int = 0o644,
) -> tuple[np.ndarray, np.ndarray]:
    """Return (rowids, matrix) of every memory's vector, float32, laid out for ``cosine_top``.

    The matrix is cached in ``cache_dir`` under the index state (:func:`cache_stamp`), so a
    short-lived process maps one file instead of decoding thousands of rows. A new cache folder
    and the cache files get ``dir_mode`` and ``file_mode`` (owner-only for a private store, see
    recall.privacy).
    """
    for attempt in range(ATTEMPTS):
        try:
            backfill(conn, embedder)
        except sqlite3.Error as error:
            if not is_unwritable_error(error):
                raise
            # A full disk (or an index turned read-only under us): rank from vectors computed
            # in memory for this recall instead of failing it; nothing is written or cached.
            return computed(conn, embedder)
        stamp, complete, cached, found = _snapshot(conn, embedder, cache_dir)
        if cached is not None:
            return cached
        if complete or attempt + 1 == ATTEMPTS:
            break
        # A writer added memories between the back-fill and the snapshot: fill them in too.
    rowids = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
    matrix = stack_bytes([r[1] for r in found], embedder.dim)
    if cache_dir is not None and complete:
        write_cache(cache_dir, stamp, rowids, matrix, dir_mode=dir_mode, file_mode=file_mode)
    return rowids, matrix


def _snapshot(
    conn: sqlite3.Connection, embedder: Embedder, cache_dir: Path | None
) -> tuple[str, bool, tuple[np.ndarray, np.ndarray] | None, list[sqlite3.Row]]:
    """(stamp, complete, cached matrix, stored vectors) of one state of the index.

    Read in one read transaction, so the stamp names exactly the rows selected (a writer
    committing meanwhile is not seen): the cache is only ever written under the stamp of the
    rows it holds. The vectors are selected only when no cache of a complete state is found.
    """
    # Inside a caller's transaction, that one already holds the state still.
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        stamp = cache_stamp(conn, embedder.name, embedder.dim)
        complete = vectors_complete(conn, embedder.name)
        cached = None
        if complete and cache_dir is not None:
            cached = _read_cache(cache_dir, stamp)
        found = []
        if cached is None:
            found = conn.execute(
                "SELECT memory_rowid, vec FROM vectors WHERE model = ? ORDER BY memory_rowid",
                (embedder.name,),
            ).fetchall()
        if own:
            conn.execute("COMMIT")
    except BaseException:
        if own:
            rollback(conn)
        raise
    return stamp, complete, cached, found


def _read_cache(cache_dir: Path, stamp: str) -> tuple[np.ndarray, np.ndarray] | None:
    matrix_path, rowid_path = cache_paths(cache_dir, stamp)
    try:
        # Mapped first, so a damaged header announcing more rows than the file holds is an
        # error here rather than an attempt to allocate them.
        rowids = np.array(np.load(rowid_path, mmap_mode="r"))
        matrix = np.load(matrix_path, mmap_mode="r")
    except (OSError, ValueError, MemoryError, OverflowError):
        return None
    if rowids.ndim != 1 or matrix.ndim != 2 or matrix.shape[0] != rowids.shape[0]:
        return None
    return rowids, matrix


def computed(conn: sqlite3.Connection, embedder: Embedder) -> tuple[np.ndarray, np.ndarray]:
    """(rowids, matrix) of every memory, embedded now in memory: what :func:`load` returns
    when the index cannot take the vectors it lacks."""
    found = conn.execute(
        "SELECT rowid, summary, details, files FROM memories ORDER BY rowid"
    ).fetchall()
    rowids = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
    if not found:
        return rowids, np.zeros((0, embedder.dim), dtype=np.float32)
    vectors = embedder.embed_many([memory_text(r[1], r[2], r[3]) for r in found])
    return rowids, prepare_matrix(np.asarray(vectors, dtype=np.float32))


def write_cache(
    cache_dir: Path,
    stamp: str,
    rowids: np.ndarray,
    matrix: np.ndarray,
    *,
    dir_mode: int,
    file_mode: int,
) -> None:
    """Write the cache atomically and drop older generations; failures only cost speed."""
    with contextlib.suppress(OSError):
        cache_dir.mkdir(parents=True, exist_ok=True, mode=dir_mode)
        matrix_path, rowid_path = cache_paths(cache_dir, stamp)
        for target, data in ((rowid_path, rowids), (matrix_path, matrix)):
            temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
            try:
                with os.fdopen(os.open(temp, flags, file_mode), "wb") as handle:
                    np.save(handle, data)
                os.replace(temp, target)
            except OSError:
                with contextlib.suppress(OSError):  # a full disk: no half-written cache left
                    temp.unlink()
                raise
        current = {matrix_path.name, rowid_path.name}
        for old in cache_dir.glob("*.npy"):
            if old.name not in current:
                with contextlib.suppress(OSError):
                    old.unlink()
