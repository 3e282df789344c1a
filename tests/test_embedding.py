"""Tests for the hash-bag embedder, vector helpers and the provider hook."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from collections import Counter
from hashlib import blake2b
from pathlib import Path

import numpy as np
import pytest

from recall.errors import BadInput, EmbedderFailed
from recall.ranking import embedding
from recall.ranking.embedding import (
    DEFAULT_DIM,
    Embedder,
    HashEmbedder,
    cosine,
    cosine_top,
    from_bytes,
    load_embedder,
    prepare_matrix,
    stack_bytes,
    text_features,
    to_bytes,
)

TEXTS = [
    "safeRename fails with EXDEV when /tmp is on another device",
    "auth/middleware.ts must verify the JWT before reading the session",
    "Prefer pnpm over npm in this repo",
    "",
    "the and of",
    "Ünïcode naïveCase Straße",
]


def reference_embedding(text: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """A slow, obviously correct rendering of the documented algorithm."""
    vec = np.zeros(dim)
    for feature, tf in Counter(text_features(text)).items():
        digest = blake2b(
            feature.encode("utf-8", "surrogatepass"), digest_size=8, key=b"tether-hashbag-1"
        )
        code = int.from_bytes(digest.digest(), "little") >> (64 - embedding.FEATURE_BITS)
        sign = 1.0 if code >> (embedding.FEATURE_BITS - 1) else -1.0
        vec[code % dim] += sign * (1.0 + math.log(tf))
    norm = np.linalg.norm(vec)
    return (vec / norm if norm else vec).astype(np.float32)


class TestFeatures:
    def test_camel_case_gives_parts_and_joined_form(self) -> None:
        assert text_features("safeRename") == ["saferename", "safe", "rename"]

    def test_path_splits_on_slash_and_dot(self) -> None:
        assert text_features("auth/middleware.ts") == ["auth", "middleware", "ts"]

    def test_snake_kebab_and_camel_share_features(self) -> None:
        camel = set(text_features("safeRename"))
        assert set(text_features("safe_rename")) == camel
        assert set(text_features("safe-rename")) == camel
        assert set(text_features("SafeRename")) == camel

    def test_acronyms_and_digits_split(self) -> None:
        assert text_features("HTTPServerError") == [
            "httpservererror",
            "http",
            "server",
            "error",
        ]
        assert text_features("TS2345") == ["ts2345", "ts", "2345"]
        assert text_features("utf8Decode") == ["utf8decode", "utf", "decode"]

    def test_stopwords_single_letters_and_plurals(self) -> None:
        assert text_features("the cache of a file") == ["cache", "file"]
        assert text_features("devices tests class status") == ["device", "test", "class", "status"]

    def test_unicode_words_and_identifiers(self) -> None:
        assert text_features("Straße naïveCase") == ["straße", "naïvecase", "naïve", "case"]

    def test_empty_and_symbol_only_text_has_no_features(self) -> None:
        assert text_features("") == []
        assert text_features("{}();=> // ::") == []


class TestHashEmbedder:
    def test_shape_dtype_and_unit_norm(self) -> None:
        emb = HashEmbedder()
        matrix = emb.embed_many(TEXTS)
        assert matrix.shape == (len(TEXTS), 384)
        assert matrix.dtype == np.float32
        norms = np.linalg.norm(matrix, axis=1)
        for text, norm in zip(TEXTS, norms, strict=True):
            expected = 1.0 if text_features(text) else 0.0
            assert norm == pytest.approx(expected, abs=1e-6)

    def test_matches_reference_algorithm_exactly(self) -> None:
        emb = HashEmbedder()
        texts = [*TEXTS, "retry retry retry backoff", "x " * 100 + "cache cache"]
        matrix = emb.embed_many(texts)
        for row, text in zip(matrix, texts, strict=True):
            np.testing.assert_array_equal(row, reference_embedding(text))

    def test_pinned_buckets_and_signs(self) -> None:
        # Changing these means every stored vector is stale: bump HashEmbedder.name too.
        vec = HashEmbedder().embed("safeRename in auth/middleware.ts")
        nonzero = np.flatnonzero(vec)
        assert nonzero.tolist() == [108, 116, 156, 161, 366, 367]
        assert np.sign(vec[nonzero]).astype(int).tolist() == [-1, -1, -1, -1, 1, -1]
        assert HashEmbedder().name == "hash-bag-v1-384"

    def test_embed_equals_embed_many_rows_across_batches(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(embedding, "BATCH_ROWS", 2)
        emb = HashEmbedder()
        matrix = emb.embed_many(TEXTS)
        for row, text in zip(matrix, TEXTS, strict=True):
            np.testing.assert_array_equal(row, HashEmbedder().embed(text))

    def test_sublinear_term_frequency(self) -> None:
        vec = HashEmbedder(dim=4096).embed("cache cache cache cache flush")
        weights = sorted(np.abs(vec[np.flatnonzero(vec)]))
        assert weights[1] / weights[0] == pytest.approx(1.0 + math.log(4), rel=1e-5)

    def test_empty_text_is_zero_and_never_nan(self) -> None:
        emb = HashEmbedder()
        zero = emb.embed("")
        assert not zero.any()
        assert cosine(zero, emb.embed("anything at all")) == 0.0
        assert cosine(zero, zero) == 0.0
        assert not np.isnan(emb.embed_many(["", "the", ""])).any()
        assert emb.embed_many([]).shape == (0, 384)

    def test_similar_texts_score_higher_than_unrelated(self) -> None:
        emb = HashEmbedder()
        base = emb.embed("safeRename fails across devices with EXDEV")
        similar = emb.embed("safe_rename cross device link error")
        unrelated = emb.embed("billing webhook idempotency key for Stripe")
        assert cosine(base, similar) > 0.3
        assert cosine(base, similar) > cosine(base, unrelated) + 0.2

    def test_deterministic_across_processes(self) -> None:
        script = textwrap.dedent(
            """
            import sys
            from recall.ranking.embedding import HashEmbedder, to_bytes
            texts = sys.stdin.read().split("\\x1e")
            sys.stdout.write(to_bytes(HashEmbedder().embed_many(texts)).hex())
            """
        )
        env = {**os.environ, "PYTHONHASHSEED": "12345"}
        proc = subprocess.run(
            [sys.executable, "-c", script],
            input="\x1e".join(TEXTS),
            capture_output=True,
            text=True,
            env=env,
            check=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        assert bytes.fromhex(proc.stdout) == to_bytes(HashEmbedder().embed_many(TEXTS))

    def test_rejects_bad_dimension(self) -> None:
        with pytest.raises(BadInput):
            HashEmbedder(dim=0)
        with pytest.raises(BadInput):
            HashEmbedder(dim=True)  # type: ignore[arg-type]

    def test_satisfies_protocol(self) -> None:
        assert isinstance(HashEmbedder(), Embedder)


def _random_unit_rows(rng: np.random.Generator, n: int, dim: int, nonzero: int) -> np.ndarray:
    matrix = np.zeros((n, dim), dtype=np.float32)
    for row in matrix:
        cols = rng.choice(dim, size=nonzero, replace=False)
        row[cols] = rng.standard_normal(nonzero)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def _brute_force(query: np.ndarray, matrix: np.ndarray, k: int) -> list[tuple[int, float]]:
    q = query.astype(np.float64) / np.linalg.norm(query)
    scores = matrix.astype(np.float64) @ q
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    return [(i, float(scores[i])) for i in order[:k]]


class TestCosineTop:
    @pytest.mark.parametrize("layout", ["C", "F"])
    @pytest.mark.parametrize("query_nonzero", [5, 384])
    @pytest.mark.parametrize("k", [1, 7, 500, 1000])
    def test_matches_brute_force(self, layout: str, query_nonzero: int, k: int) -> None:
        rng = np.random.default_rng(k * 1000 + query_nonzero)
        matrix = _random_unit_rows(rng, 500, 384, 30)
        if layout == "F":
            matrix = prepare_matrix(matrix)
        query = _random_unit_rows(rng, 1, 384, query_nonzero)[0] * 3.0
        got = cosine_top(query, matrix, k)
        want = _brute_force(query, matrix, k)
        assert len(got) == min(k, 500)
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
        assert [i for i, _ in got] == [i for i, _ in want]

    def test_ties_order_by_row_and_min_score_filters(self) -> None:
        matrix = np.array([[1, 0], [0, 1], [1, 0], [-1, 0]], dtype=np.float32)
        query = np.array([1, 0], dtype=np.float32)
        assert cosine_top(query, matrix, 3) == [(0, 1.0), (2, 1.0), (1, 0.0)]
        assert cosine_top(query, matrix, 4, min_score=0.5) == [(0, 1.0), (2, 1.0)]

    def test_degenerate_inputs(self) -> None:
        matrix = np.eye(4, dtype=np.float32)
        assert cosine_top(np.ones(4), matrix, 0) == []
        assert cosine_top(np.zeros(4), matrix, 3) == []
        assert cosine_top(np.ones(4), np.zeros((0, 4), dtype=np.float32), 3) == []
        with pytest.raises(ValueError):
            cosine_top(np.ones(3), matrix, 2)

    def test_nan_rows_never_surface(self) -> None:
        matrix = np.array([[np.nan, 0], [0.6, 0.8], [1, 0]], dtype=np.float32)
        assert [i for i, _ in cosine_top(np.array([1.0, 0.0]), matrix, 3)] == [2, 1]

    def test_uses_float32_products(self) -> None:
        rng = np.random.default_rng(1)
        matrix = prepare_matrix(_random_unit_rows(rng, 50, 384, 20).astype(np.float16))
        assert matrix.dtype == np.float32
        assert matrix.flags.f_contiguous
        scores = [s for _, s in cosine_top(matrix[0], matrix, 5)]
        assert all(isinstance(s, float) for s in scores)


class TestBytes:
    def test_round_trip(self) -> None:
        vec = HashEmbedder().embed(TEXTS[0])
        blob = to_bytes(vec)
        assert len(blob) == 384 * 4
        back = from_bytes(blob)
        assert back.dtype == np.float32
        np.testing.assert_array_equal(back, vec)
        back[0] = 1.0  # writable

    def test_stack_bytes_builds_column_major_matrix(self) -> None:
        matrix = HashEmbedder().embed_many(TEXTS)
        stacked = stack_bytes([to_bytes(row) for row in matrix], 384)
        np.testing.assert_array_equal(stacked, matrix)
        assert stacked.flags.f_contiguous
        assert stack_bytes([], 384).shape == (0, 384)

    def test_the_layout_is_made_a_cache_sized_block_of_rows_at_a_time(self) -> None:
        assert embedding.LAYOUT_BLOCK_ROWS == 128

    @pytest.mark.parametrize("rows", [0, 1, 127, 128, 129, 300])
    @pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
    def test_the_layout_is_numpys_to_the_byte(self, rows: int, dtype: type) -> None:
        source = np.random.default_rng(rows).standard_normal((rows, 384)).astype(dtype)
        laid = prepare_matrix(source)
        expected = np.asfortranarray(source, dtype=np.float32)
        assert laid.dtype == np.float32
        assert laid.flags.f_contiguous
        assert laid.shape == expected.shape
        assert laid.tobytes(order="A") == expected.tobytes(order="A")

    def test_a_matrix_already_laid_out_is_kept(self) -> None:
        laid = np.asfortranarray(np.ones((5, 4), dtype=np.float32))
        assert prepare_matrix(laid) is laid

    def test_bad_lengths_are_reported(self) -> None:
        with pytest.raises(ValueError, match="5 bytes"):
            from_bytes(b"12345")
        with pytest.raises(ValueError, match="blob 1"):
            stack_bytes([b"\0" * 16, b"\0" * 12], 4)


PROVIDER_SOURCE = """
import numpy as np

class Good:
    dim = 3
    name = "toy-3"
    def embed(self, text):
        return [len(text), 1.0, 0.0]
    def embed_many(self, texts):
        return [[len(t), 1.0, 0.0] for t in texts]

class Broken:
    def __init__(self):
        raise RuntimeError("no model file")

class NoDim:
    def embed(self, text):
        return [0.0]
    def embed_many(self, texts):
        return [[0.0] for _ in texts]

class WrongShape(Good):
    def embed_many(self, texts):
        return [[1.0, 2.0] for _ in texts]

def make_good():
    return Good()
"""


@pytest.fixture
def provider_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = "tether_toy_provider"
    (tmp_path / f"{name}.py").write_text(PROVIDER_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


class TestLoadEmbedder:
    @pytest.mark.parametrize("spec", [None, "", "hash", "  hash "])
    def test_default_is_hash_embedder(self, spec: str | None) -> None:
        emb = load_embedder(spec)
        assert isinstance(emb, HashEmbedder)
        assert emb.dim == 384

    def test_provider_is_imported_lazily_and_normalized(self, provider_module: str) -> None:
        load_embedder(None)
        assert provider_module not in sys.modules
        emb = load_embedder(f"{provider_module}:Good")
        assert provider_module in sys.modules
        assert isinstance(emb, Embedder)
        assert (emb.dim, emb.name) == (3, "toy-3-3")  # its name, then its size
        vec = emb.embed("abcd")
        assert vec.dtype == np.float32
        assert float(np.linalg.norm(vec)) == pytest.approx(1.0, abs=1e-6)
        matrix = emb.embed_many(["ab", "abc"])
        assert matrix.shape == (2, 3)
        assert matrix.dtype == np.float32
        assert emb.embed_many([]).shape == (0, 3)

    def test_factory_function_is_called(self, provider_module: str) -> None:
        assert load_embedder(f"{provider_module}:make_good").dim == 3

    @pytest.mark.parametrize(
        ("attr_spec", "fragment"),
        [
            ("{mod}:Missing", "no attribute"),
            ("{mod}:Broken", "no model file"),
            ("{mod}:NoDim", "'dim'"),
            ("tether_no_such_module_x:Thing", "cannot import"),
            ("{mod}", "expected 'hash'"),
            (":Thing", "expected 'hash'"),
        ],
    )
    def test_bad_specs_raise_bad_input_naming_the_spec(
        self, provider_module: str, attr_spec: str, fragment: str
    ) -> None:
        spec = attr_spec.format(mod=provider_module)
        with pytest.raises(BadInput) as info:
            load_embedder(spec)
        assert repr(spec) in str(info.value)
        assert fragment in str(info.value)
        assert info.value.exit_code == 2

    def test_wrong_output_shape_is_a_provider_failure(self, provider_module: str) -> None:
        emb = load_embedder(f"{provider_module}:WrongShape")
        with pytest.raises(EmbedderFailed, match="not 2 x 3"):
            emb.embed_many(["a", "b"])


def test_an_ascii_text_is_cut_into_the_same_chunks_by_the_ascii_pattern() -> None:
    """The pattern taken for ASCII text finds exactly the chunks of the general one, for every
    ASCII character in every position a chunk can have (alone, inside, around separators)."""
    import random

    from recall.ranking.hashbag import ASCII_CHUNK, CHUNK, FeatureCodes

    every = [chr(c) for c in range(128)]
    texts = [f"a{ch}b _{ch}- x{ch}{ch}y {ch}z-{ch}_w" for ch in every]
    pick = random.Random(7)
    alphabet = every + list("aZ9_-" * 20)
    texts += ["".join(pick.choice(alphabet) for _ in range(200)) for _ in range(300)]
    texts.append("safeRename safe_rename safe-rename __init__ a--b x_-_y 0xFF v2.3 IPv6")
    for text in texts:
        assert ASCII_CHUNK.findall(text) == CHUNK.findall(text), repr(text)
    codes = FeatureCodes()
    for text in texts:
        expected = [code for chunk in CHUNK.findall(text) for code in codes[chunk]]
        assert codes.of(text) == expected
    assert codes.of("naïve café") == [c for w in ("naïve", "café") for c in codes[w]]
