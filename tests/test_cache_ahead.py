"""A first large import lays out the recall cache of the vectors it stored while it finishes,
instead of reading them back out of the index after its commit: the same cache, written only
once the import has committed, and an import into a store that held memories before makes it as
it always did."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from conftest import make_repo

from recall.importer import import_lines
from recall.locations import project_location
from recall.ranking.embedding import HashEmbedder, stack_bytes
from recall.ranking.vector_blobs import pack_rows
from recall.ranking.vector_cache import cache_paths, cache_stamp
from recall.store import MemoryStore
from recall.store.cache_ahead import CacheAhead, CachePlace
from tests.test_write_behind import THREADED, _import, _lines

READ_BACK = "SELECT memory_rowid, vec FROM vectors"


def _cache_of(store: MemoryStore) -> tuple[np.ndarray, np.ndarray]:
    """The cache files of the store's current state (they must exist)."""
    embedder = HashEmbedder()
    stamp = cache_stamp(store.conn, embedder.name, embedder.dim)
    matrix, rowids = cache_paths(store.location.base / "cache", stamp)
    return np.load(rowids), np.load(matrix)


def _from_index(store: MemoryStore) -> tuple[np.ndarray, np.ndarray]:
    found = store.conn.execute(f"{READ_BACK} ORDER BY memory_rowid").fetchall()
    rowids = np.array([r[0] for r in found], dtype=np.int64)
    return rowids, stack_bytes([r[1] for r in found], HashEmbedder().dim)


def test_a_first_import_writes_the_cache_without_reading_its_vectors_back(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)
    store.create_on_disk()
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    results = import_lines(
        store,
        _lines(600),
        lambda raw: store.normalize_input(raw, repo),
        "tester",
        write_behind_from=THREADED,
    )
    store.conn.set_trace_callback(None)
    store.finish_writes()  # the cache, written on its thread while the caller reports
    assert sum(r.status == "created" for r in results) > 500
    assert any(s.startswith("COMMIT") for s in seen)  # the import's own connection was traced
    assert not [s for s in seen if s.startswith(READ_BACK)]  # laid out from what it stored
    rowids, matrix = _cache_of(store)
    expected_rowids, expected = _from_index(store)
    assert np.array_equal(rowids, expected_rowids)
    assert matrix.dtype == expected.dtype and matrix.flags.f_contiguous
    assert np.array_equal(matrix, expected)
    store.close()


def test_an_import_into_a_store_with_memories_still_writes_a_whole_cache(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    first, _ = _import(repo, _lines(3), THREADED)
    first.close()
    store, results = _import(repo, _lines(600)[3:], THREADED)
    store.finish_writes()
    assert sum(r["status"] == "created" for r in results) > 500
    rowids, matrix = _cache_of(store)
    expected_rowids, expected = _from_index(store)
    assert np.array_equal(rowids, expected_rowids) and np.array_equal(matrix, expected)
    store.close()


def _stored(count: int) -> list[tuple[int, bytes]]:
    embedder = HashEmbedder()
    texts = [f"note {n} about the connection pool" for n in range(count)]
    blobs = pack_rows(embedder.embed_many(texts))
    return [(rowid, blob) for rowid, blob in reversed(list(enumerate(blobs, start=1)))]


def test_the_cache_is_written_under_the_stamp_given_once_committed(tmp_path: Path) -> None:
    place = CachePlace(tmp_path / "cache", 0o755, 0o644)
    stored = _stored(40)
    ahead = CacheAhead(list(stored), HashEmbedder().dim, place)
    ahead.committed("abc-7-hash-bag-v1-384")
    ahead.wait()
    assert ahead.writes
    matrix_path, rowid_path = cache_paths(place.folder, "abc-7-hash-bag-v1-384")
    assert np.load(rowid_path).tolist() == list(range(1, 41))  # in rowid order
    expected = stack_bytes([blob for _, blob in sorted(stored)], HashEmbedder().dim)
    assert np.array_equal(np.load(matrix_path), expected)


def test_an_abandoned_batch_writes_no_cache(tmp_path: Path) -> None:
    place = CachePlace(tmp_path / "cache", 0o755, 0o644)
    ahead = CacheAhead(_stored(40), HashEmbedder().dim, place)
    ahead.abandoned()
    ahead.wait()
    assert not ahead.writes
    assert not place.folder.exists() or not list(place.folder.iterdir())
