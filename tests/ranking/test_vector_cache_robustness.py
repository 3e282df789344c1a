"""The vector cache against rebuilt indexes, stale and damaged files, tiny stores and racing
writers.

The cache is named by a stamp of the index state; whatever is on disk under that name must be
exactly the vectors of that state, and a short-lived reader must step aside (never crash) when
the files are not what ``vectors.py`` writes.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from recall.index import rows
from recall.ranking import hashbag, lean_semantic, vector_cache, vectors
from recall.ranking import weights as W
from recall.ranking.embedding import HashEmbedder, prepare_matrix
from recall.ranking.query import RecallQuery
from recall.store import MemoryStore

from .world import CREATED, World

EMBEDDER = HashEmbedder()
DIM = EMBEDDER.dim


def _cache(world: World) -> Path:
    return world.project.location.base / "cache"


def _stamp(conn: sqlite3.Connection) -> str:
    return vector_cache.cache_stamp(conn, EMBEDDER.name, DIM)


def _expected(conn: sqlite3.Connection) -> tuple[list[int], np.ndarray]:
    """Every memory's rowid and the vector its current text embeds to."""
    found = conn.execute(
        "SELECT rowid, summary, details, files FROM memories ORDER BY rowid"
    ).fetchall()
    texts = [vectors.memory_text(r[1], r[2], r[3]) for r in found]
    return [r[0] for r in found], EMBEDDER.embed_many(texts)


def _cached_names(cache: Path) -> list[str]:
    return sorted(path.name for path in cache.glob("*.npy"))


def _current_names(cache: Path, conn: sqlite3.Connection) -> list[str]:
    return sorted(path.name for path in vector_cache.cache_paths(cache, _stamp(conn)))


def _write_elsewhere(other: MemoryStore) -> str:
    """Another process's write: one memory through a second store on the same repository."""
    draft = other.prepare_memory(
        summary="kettle teapot boils", category="context", files=["src/k.py"]
    )
    return other.remember(draft).id


def _lean(conn: sqlite3.Connection, cache: Path, prompt: str) -> list[tuple[int, float]] | None:
    sparse = hashbag.sparse_vector(prompt, DIM, hashbag.FeatureCodes())
    return lean_semantic.similar(
        conn,
        cache,
        EMBEDDER.name,
        DIM,
        hashbag.query_weights(sparse),
        W.SEMANTIC_CANDIDATES,
        W.SEMANTIC_MIN_COSINE,
    )


def _write_npy_header(path: Path, header: dict[str, object], data: bytes) -> None:
    with open(path, "wb") as handle:
        np.lib.format.write_array_header_1_0(handle, header)
        handle.write(data)


class TestIndexStamp:
    def test_a_new_index_has_an_identity_and_a_generation(self, world: World) -> None:
        world.remember("session token expires early", "src/auth.py")
        assert re.fullmatch(r"[0-9a-f]{8}-1", rows.index_stamp(world.project.conn))

    def test_an_index_without_an_identity_gets_one_with_its_next_change(self, world: World) -> None:
        world.remember("session token expires early", "src/auth.py")
        conn = world.project.conn
        conn.execute("DELETE FROM meta WHERE key = 'index_id'")  # as an older version made it
        assert rows.index_stamp(conn) == "0-1"
        world.remember("socket buffer flushed twice", "src/net.py")
        assert re.fullmatch(r"[0-9a-f]{8}-2", rows.index_stamp(conn))


class TestRebuild:
    def test_a_rebuilt_index_never_reuses_the_old_cache(self, world: World) -> None:
        store = world.project
        # Written in the opposite order of their file names, which a rebuild reads them in:
        # the rebuilt index gives them other rowids, and ends at the same generation.
        for memory_id, summary in (
            ("ffffffff", "violin cello viola"),
            ("88888888", "scheduler retry timeout"),
            ("00000000", "kettle teapot"),
        ):
            draft = store.prepare_memory(
                summary=summary, category="context", files=["src/a.py"], created=CREATED
            )
            store.remember(draft, memory_id=memory_id)
        vectors.load(store.conn, EMBEDDER, _cache(world))
        before, counted = rows.index_stamp(store.conn), rows.generation(store.conn)

        store.reindex()

        assert rows.generation(store.conn) == counted  # the count alone cannot tell them apart
        assert rows.index_stamp(store.conn) != before
        rowids, matrix = vectors.load(store.conn, EMBEDDER, _cache(world))
        wanted_ids, wanted = _expected(store.conn)
        assert rowids.tolist() == wanted_ids
        np.testing.assert_array_equal(np.asarray(matrix), wanted)
        assert _cached_names(_cache(world)) == _current_names(_cache(world), store.conn)


class TestCleanup:
    def test_a_stale_cache_whose_name_holds_the_current_stamp_is_dropped(
        self, world: World
    ) -> None:
        world.remember("session token expires early", "src/auth.py")
        conn, cache = world.project.conn, _cache(world)
        cache.mkdir(parents=True)
        # As generation 12's files read next to generation 2's: the name holds the stamp.
        for stale in vector_cache.cache_paths(cache, "1" + _stamp(conn)):
            np.save(stale, np.zeros(1, dtype=np.int64))

        vectors.load(conn, EMBEDDER, cache)

        assert _cached_names(cache) == _current_names(cache, conn)


class TestDamagedRowids:
    @pytest.mark.parametrize("count", [9_999_999_999_999, 10**30])
    def test_a_rowids_header_claiming_more_rows_than_the_file_holds(
        self, tmp_path: Path, count: int
    ) -> None:
        matrix_path, rowid_path = vector_cache.cache_paths(tmp_path, "s")
        np.save(matrix_path, prepare_matrix(np.ones((4, 8), dtype=np.float32)))
        header = {"descr": "<i8", "fortran_order": False, "shape": (count,)}
        _write_npy_header(rowid_path, header, np.arange(4, dtype="<i8").tobytes())

        assert vector_cache.read_columns(tmp_path, "s", 8, [0]) is None

    def test_an_npy_header_longer_than_numpy_accepts(self, tmp_path: Path) -> None:
        matrix_path, rowid_path = vector_cache.cache_paths(tmp_path, "s")
        np.save(matrix_path, prepare_matrix(np.ones((4, 8), dtype=np.float32)))
        header = {"descr": "<i8", "fortran_order": False, "shape": (4,), "x": "y" * 20_000}
        with open(rowid_path, "wb") as handle:
            np.lib.format.write_array_header_2_0(handle, header)
            handle.write(np.arange(4, dtype="<i8").tobytes())

        assert vector_cache.read_columns(tmp_path, "s", 8, [0]) is None

    def test_a_short_lived_recall_steps_aside_and_still_answers(self, world: World) -> None:
        for n, summary in enumerate(("kettle teapot boils", "violin cello viola", "retry loop")):
            world.remember(summary, f"src/m{n}.py")
        conn, cache = world.project.conn, _cache(world)
        vectors.load(conn, EMBEDDER, cache)
        _, rowid_path = vector_cache.cache_paths(cache, _stamp(conn))
        header = {"descr": "<i8", "fortran_order": False, "shape": (9_999_999_999_999,)}
        _write_npy_header(rowid_path, header, np.arange(1, 4, dtype="<i8").tobytes())

        assert _lean(conn, cache, "kettle teapot") is None
        recaller = world.recaller()
        recaller.short_lived = True
        result = recaller.recall(RecallQuery((), "kettle teapot"))
        assert result.hits
        assert result.hits[0].memory.summary == "kettle teapot boils"
        assert _lean(conn, cache, "kettle teapot") is not None  # the numpy path rewrote it


class TestTinyStores:
    @pytest.mark.parametrize("count", [0, 1])
    def test_at_most_one_memory_takes_the_plain_python_path(
        self, world: World, tmp_path: Path, count: int
    ) -> None:
        for n in range(count):
            world.remember(f"kettle teapot note {n}", "src/a.py")
        conn, cache = world.project.conn, tmp_path / "cache"
        rowids, matrix = vectors.load(conn, EMBEDDER, cache)
        stamp = _stamp(conn)

        assert vector_cache.rows_cached(cache, stamp, DIM) == count
        sparse = hashbag.sparse_vector("kettle", DIM, hashbag.FeatureCodes())
        columns = sorted({column for column, _ in sparse})
        found = vector_cache.read_columns(cache, stamp, DIM, columns)
        assert found is not None
        assert list(found.rowids) == rowids.tolist()
        for column in columns:
            assert list(found.columns[column]) == np.asarray(matrix)[:, column].tolist()
        lean = _lean(conn, cache, "kettle teapot")
        assert lean is not None
        assert [rowid for rowid, _ in lean] == rowids.tolist()


class TestRacingWriter:
    def test_a_write_between_backfill_and_cache_never_stamps_old_rows(
        self, world: World, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        for n in range(3):
            world.remember(f"socket buffer note {n}", f"src/m{n}.py")
        store, cache = world.project, _cache(world)
        other = MemoryStore(store.location, notice=lambda message: None)
        real_backfill = vectors.backfill
        raced: list[str] = []

        def backfill_then_a_write(
            conn: sqlite3.Connection, embedder: HashEmbedder, *progress: object
        ) -> int:
            added = real_backfill(conn, embedder, *progress)  # type: ignore[arg-type]
            if not raced:  # another process commits a memory right after the back-fill
                raced.append(_write_elsewhere(other))
            return added

        monkeypatch.setattr(vectors, "backfill", backfill_then_a_write)
        try:
            rowids, matrix = vectors.load(store.conn, EMBEDDER, cache)
        finally:
            other.close()

        assert raced
        wanted_ids, wanted = _expected(store.conn)
        assert len(wanted_ids) == 4
        # The cache on disk holds exactly the rows of the state its name stamps.
        assert _cached_names(cache) == _current_names(cache, store.conn)
        matrix_path, rowid_path = vector_cache.cache_paths(cache, _stamp(store.conn))
        assert np.load(rowid_path).tolist() == wanted_ids
        np.testing.assert_array_equal(np.load(matrix_path), wanted)
        assert rowids.tolist() == wanted_ids
        np.testing.assert_array_equal(np.asarray(matrix), wanted)

    def test_a_write_during_the_snapshot_is_not_seen_by_it(
        self, world: World, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        for n in range(3):
            world.remember(f"socket buffer note {n}", f"src/m{n}.py")
        store, cache = world.project, _cache(world)
        vectors.backfill(store.conn, EMBEDDER)
        before_ids, before = _expected(store.conn)
        old_stamp = _stamp(store.conn)
        other = MemoryStore(store.location, notice=lambda message: None)
        real_stamp = vectors.cache_stamp
        raced: list[str] = []

        def stamp_then_a_write(conn: sqlite3.Connection, model: str, dim: int) -> str:
            stamp = real_stamp(conn, model, dim)
            if not raced:  # another process writes a memory and its vector in between
                raced.append(_write_elsewhere(other))
                vectors.backfill(other.conn, EMBEDDER)
            return stamp

        monkeypatch.setattr(vectors, "cache_stamp", stamp_then_a_write)
        try:
            rowids, _matrix = vectors.load(store.conn, EMBEDDER, cache)
        finally:
            other.close()

        assert raced and _stamp(store.conn) != old_stamp
        # the cache written under the stamp read first holds that state's rows, not the new one
        matrix_path, rowid_path = vector_cache.cache_paths(cache, old_stamp)
        assert np.load(rowid_path).tolist() == before_ids
        np.testing.assert_array_equal(np.load(matrix_path), before)
        assert rowids.tolist() == before_ids


def test_loading_inside_a_callers_transaction_reads_that_state(world: World) -> None:
    for n in range(2):
        world.remember(f"socket buffer note {n}", f"src/m{n}.py")
    store, cache = world.project, _cache(world)
    vectors.backfill(store.conn, EMBEDDER)
    wanted_ids, _ = _expected(store.conn)
    store.conn.execute("BEGIN")
    try:
        rowids, _matrix = vectors.load(store.conn, EMBEDDER, cache)
        assert store.conn.in_transaction  # the caller's transaction is left to the caller
    finally:
        store.conn.execute("COMMIT")
    assert rowids.tolist() == wanted_ids
