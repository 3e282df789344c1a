"""The semantic channel without numpy (short-lived processes) against the numpy path.

Both paths score the same float32 vectors in float64, column after column, so they must agree
to the last bit: same memories, same order, same cosines, and so the same recall. Whenever the
plain-Python path cannot answer (no cache yet, vectors still to compute, a damaged or foreign
cache file, a query too large) it steps aside and the numpy path answers instead.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from array import array
from pathlib import Path

import numpy as np
import pytest

from recall.ranking import hashbag, lean_semantic, vector_cache, vectors
from recall.ranking import weights as W
from recall.ranking.embedding import (
    HashEmbedder,
    column_scores,
    cosine_top,
    prepare_matrix,
    top_rows,
)
from recall.ranking.query import RecallQuery, Touch
from recall.store import MemoryStore

from .world import CREATED, World

WORDS = [
    "cache",
    "retry",
    "timeout",
    "session",
    "token",
    "parser",
    "lexer",
    "socket",
    "buffer",
    "flush",
    "commit",
    "rebase",
    "scheduler",
    "worker",
    "queue",
    "lock",
    "mutex",
    "deadlock",
    "index",
    "migration",
    "schema",
    "webhook",
    "billing",
    "invoice",
    "render",
    "layout",
    "font",
    "glyph",
    "kernel",
    "driver",
    "device",
    "route",
    "table",
    "netlink",
    "filter",
]
IDENTIFIERS = ["safeRename", "parse_args", "HTTPServerError", "utf8Decode", "TS2345", "max-retries"]
FOLDERS = ["src/auth", "src/net", "lib/db", "ui/render", "tools"]

PROMPTS = [
    "why does the retry loop in the scheduler drop jobs after a timeout?",
    "safeRename fails across devices",
    "netlink route table filter is wrong for ipv6",
    "HTTPServerError when the session token expires",
    "flush the socket buffer before commit",
    "utf8Decode on a lexer glyph",
    "deadlock between the worker queue and the index migration lock",
    "billing webhook invoice",
    "max-retries parse_args",
    "kernel driver device",
]


def _memory_texts(count: int, seed: int = 7) -> list[tuple[str, list[str]]]:
    rng = random.Random(seed)
    made: list[tuple[str, list[str]]] = []
    for number in range(count):
        words = rng.sample(WORDS, rng.randint(3, 8)) + rng.sample(IDENTIFIERS, rng.randint(0, 2))
        files = [f"{rng.choice(FOLDERS)}/{rng.choice(WORDS)}.py" for _ in range(rng.randint(1, 3))]
        made.append((f"{' '.join(words)} (note {number})", files))
    return made


def _fill(store: MemoryStore, count: int) -> None:
    drafts = [
        (
            store.prepare_memory(summary=summary, category="context", files=files, created=CREATED),
            None,
        )
        for summary, files in _memory_texts(count)
    ]
    store.import_many(drafts)


@pytest.fixture
def filled(world: World) -> World:
    """A project store of 300 memories whose vector cache is written (one numpy recall)."""
    _fill(world.project, 300)
    world.recall(prompt=PROMPTS[0])
    return world


def _lean(world: World, prompt: str) -> list[tuple[int, float]] | None:
    sparse = hashbag.sparse_vector(prompt, hashbag.DEFAULT_DIM, hashbag.FeatureCodes())
    return lean_semantic.similar(
        world.project.conn,
        world.project.location.base / "cache",
        hashbag.model_name(hashbag.DEFAULT_DIM),
        hashbag.DEFAULT_DIM,
        hashbag.query_weights(sparse),
        W.SEMANTIC_CANDIDATES,
        W.SEMANTIC_MIN_COSINE,
    )


def _numpy(world: World, prompt: str) -> list[tuple[int, float]]:
    embedder = HashEmbedder()
    rowids, matrix = vectors.load(world.project.conn, embedder, None)
    found = cosine_top(
        embedder.embed(prompt), matrix, W.SEMANTIC_CANDIDATES, min_score=W.SEMANTIC_MIN_COSINE
    )
    return [(int(rowids[row]), cosine) for row, cosine in found]


def _recall(world: World, prompt: str, *edits: str, short_lived: bool):
    recaller = world.recaller()
    recaller.short_lived = short_lived
    touches = tuple(Touch(path, "edit") for path in edits)
    result = recaller.recall(RecallQuery(touches, prompt))
    return [(h.memory.id, h.score, h.receipt, h.signals) for h in result.hits], result


class TestSameAsNumpy:
    def test_the_query_vector_is_the_batch_embedders_row(self) -> None:
        texts = [*PROMPTS, *(summary for summary, _ in _memory_texts(50)), "", "the of"]
        matrix = HashEmbedder().embed_many(texts)
        for text, row in zip(texts, matrix, strict=True):
            sparse = hashbag.sparse_vector(text, hashbag.DEFAULT_DIM, hashbag.FeatureCodes())
            dense = np.zeros(hashbag.DEFAULT_DIM, dtype=np.float32)
            for column, value in sparse:
                dense[column] = value
            np.testing.assert_array_equal(dense, row)

    def test_scores_are_equal_to_the_last_bit(self) -> None:
        rng = np.random.default_rng(3)
        matrix = np.zeros((500, 64), dtype=np.float32)
        for row in matrix:
            row[rng.choice(64, size=6, replace=False)] = rng.standard_normal(6)
        matrix = prepare_matrix(matrix / np.linalg.norm(matrix, axis=1, keepdims=True))
        for _ in range(20):
            columns = sorted(rng.choice(64, size=int(rng.integers(1, 16)), replace=False))
            weights = hashbag.query_weights(
                [(int(c), float(rng.standard_normal())) for c in columns]
            )
            plain = lean_semantic.column_scores(
                {c: matrix[:, c].tolist() for c in columns},  # type: ignore[misc]
                weights,
            )
            assert plain == column_scores(matrix, weights).tolist()
            for k in (1, 5, 50, 600):
                assert lean_semantic.top_rows(plain, k, 0.0) == top_rows(np.array(plain), k, 0.0)

    def test_nonzero_entries_only_score_the_same_above_a_positive_floor(self) -> None:
        rng = np.random.default_rng(5)
        matrix = np.zeros((400, 32), dtype=np.float32)
        for row in matrix[:380]:  # the last rows are zero in every column
            row[rng.choice(32, size=4, replace=False)] = rng.standard_normal(4)
        matrix[7, 3], matrix[9, 3], matrix[11, 5] = np.nan, -0.0, 1e-40  # NaN, -0, subnormal
        for _ in range(30):
            columns = sorted(rng.choice(32, size=int(rng.integers(1, 10)), replace=False))
            weights = hashbag.query_weights(
                [(int(c), float(rng.standard_normal())) for c in columns]
            )
            values = {c: array("f", matrix[:, c].tobytes()) for c in columns}
            dense = lean_semantic.column_scores(values, weights)
            sparse = lean_semantic.sparse_column_scores(values, weights, len(matrix))
            for one, other in zip(dense, sparse, strict=True):
                assert one == other or (math.isnan(one) and math.isnan(other)) or one == 0.0
            nonzero = [row for row, score in enumerate(sparse) if score]
            for k, floor in ((1, 1e-6), (5, W.SEMANTIC_MIN_COSINE), (50, 0.05), (500, 1e-6)):
                expected = lean_semantic.top_rows(dense, k, floor)
                assert lean_semantic.top_rows(sparse, k, floor, among=nonzero) == expected

    def test_the_nonzero_mask_is_the_truth_of_each_value(self) -> None:
        values = array("f", [0.0, -0.0, float("nan"), 1e-40, 1.0, -2.0, float("-inf"), 0.0])
        mask = lean_semantic.nonzero_mask(values)
        assert [bool(byte) for byte in mask] == [bool(value) for value in values]
        assert [bool(byte) for byte in mask] == [False, False, True, True, True, True, True, False]
        with pytest.raises(ValueError, match="float32"):
            lean_semantic.nonzero_mask(array("d", [1.0]))

    def test_top_rows_order_ties_by_row_and_drop_nan(self) -> None:
        scores = [0.5, float("nan"), 0.9, 0.5, -float("inf"), 0.5, 0.1]
        plain = lean_semantic.top_rows(scores, 3, None)
        assert plain == [(2, 0.9), (0, 0.5), (3, 0.5)]
        assert plain == top_rows(np.array(scores), 3, None)
        assert lean_semantic.top_rows(scores, 10, 0.2) == top_rows(np.array(scores), 10, 0.2)
        assert lean_semantic.top_rows(scores, 0, None) == []

    def test_same_neighbours_and_cosines_as_numpy(self, filled: World) -> None:
        for prompt in PROMPTS:
            lean = _lean(filled, prompt)
            assert lean is not None, prompt
            assert lean, prompt
            assert lean == _numpy(filled, prompt), prompt

    def test_same_recall_either_way(self, filled: World) -> None:
        similar = 0
        for prompt in PROMPTS:
            numpy_hits, _ = _recall(filled, prompt, "src/auth/cache.py", short_lived=False)
            lean_hits, _ = _recall(filled, prompt, "src/auth/cache.py", short_lived=True)
            assert lean_hits == numpy_hits, prompt
            similar += any("semantic" in signals for *_, signals in lean_hits)
        assert similar >= len(PROMPTS) // 2  # the channel did take part in these rankings


class TestStepsAside:
    def test_no_cache_yet(self, world: World) -> None:
        _fill(world.project, 40)
        assert _lean(world, PROMPTS[0]) is not None  # the import made the vectors and the cache
        for cached in (world.project.location.base / "cache").glob("*.npy"):
            cached.unlink()
        assert _lean(world, PROMPTS[0]) is None
        hits, _ = _recall(world, PROMPTS[0], short_lived=True)
        assert hits  # answered by numpy, which also wrote the cache
        assert _lean(world, PROMPTS[0]) is not None

    def test_vectors_to_compute_after_a_new_memory(self, filled: World) -> None:
        filled.remember("scheduler retry timeout drops jobs", "src/net/queue.py")
        assert _lean(filled, PROMPTS[0]) is None
        numpy_hits, _ = _recall(filled, PROMPTS[0], short_lived=False)
        assert _lean(filled, PROMPTS[0]) == _numpy(filled, PROMPTS[0])
        assert _recall(filled, PROMPTS[0], short_lived=True)[0] == numpy_hits

    @pytest.mark.parametrize("damage", ["truncate", "foreign-dtype", "c-order", "garbage"])
    def test_a_damaged_or_foreign_cache(self, filled: World, damage: str) -> None:
        store = filled.project
        stamp = vector_cache.cache_stamp(store.conn, hashbag.model_name(384), 384)
        matrix_path, _ = vector_cache.cache_paths(store.location.base / "cache", stamp)
        data = np.load(matrix_path)
        if damage == "truncate":
            matrix_path.write_bytes(matrix_path.read_bytes()[:-100])
        elif damage == "foreign-dtype":
            np.save(matrix_path, np.asfortranarray(data, dtype=np.float64))
        elif damage == "c-order":
            np.save(matrix_path, np.ascontiguousarray(data))
        else:
            matrix_path.write_bytes(b"not a numpy file at all")
        assert _lean(filled, PROMPTS[0]) is None
        hits, _ = _recall(filled, PROMPTS[0], short_lived=True)
        assert hits

    def test_a_query_too_large_for_plain_python(
        self, filled: World, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        assert _lean(filled, PROMPTS[0]) is not None
        monkeypatch.setattr(lean_semantic, "MAX_PRODUCTS", 300)
        assert _lean(filled, PROMPTS[0]) is None
        assert _recall(filled, PROMPTS[0], short_lived=True)[0]

    def test_reads_every_npy_header_version(self, tmp_path: Path) -> None:
        matrix = prepare_matrix(np.arange(12, dtype=np.float32).reshape(4, 3))
        rowids = np.array([5, 6, 7, 9], dtype=np.int64)
        matrix_path, rowid_path = vector_cache.cache_paths(tmp_path, "s")
        for version in ((1, 0), (2, 0), (3, 0)):
            for path, data in ((matrix_path, matrix), (rowid_path, rowids)):
                with open(path, "wb") as handle:
                    np.lib.format.write_array(handle, data, version=version)
            found = vector_cache.read_columns(tmp_path, "s", 3, [2, 0])
            assert found is not None, version
            assert list(found.rowids) == [5, 6, 7, 9]
            assert list(found.columns[0]) == [0.0, 3.0, 6.0, 9.0]
            assert list(found.columns[2]) == [2.0, 5.0, 8.0, 11.0]
            assert vector_cache.read_columns(tmp_path, "s", 4, [0]) is None  # other width


def test_a_short_lived_recall_never_imports_numpy(filled: World, tmp_path: Path) -> None:
    """``tether inject`` in a repository whose vector cache is current: numpy stays unloaded."""
    script = (
        "import sys\n"
        "from recall.cli.main import main\n"
        "code = main(sys.argv[1:])\n"
        "print('numpy' in sys.modules, code, file=sys.stderr)\n"
    )
    env = {**os.environ, "TETHER_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", script, "inject", "--json", PROMPTS[0]],
        cwd=filled.root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.stderr.strip().splitlines()[-1] == "False 0", done.stderr
    injected = json.loads(done.stdout)
    assert injected, done.stdout
