"""Text embeddings for the semantic channel: a deterministic hash-bag default and a provider hook.

The default embedder needs no model, no network and no stored state: the hash-bag of
:mod:`recall.ranking.hashbag` (features, hashing and one text's vector in plain Python), with the
many-texts case done here in numpy. Vectors are float32 unit rows, so cosine is a dot product.

A provider embedder (a real model) can be configured as ``"package.module:ClassName"``; it is
imported only when configured, and its output is coerced to the same float32 unit vectors.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np

from recall.errors import BadInput, EmbedderFailed
from recall.ranking.hashbag import (
    DEFAULT_DIM,
    FEATURE_BITS,
    FEATURE_MASK,
    SPARSE_QUERY_RATIO,
    FeatureCodes,
    is_sparse,
    model_name,
    query_weights,
    sparse_vector,
    text_features,
)
from recall.ranking.vector_blobs import unpack_rows

__all__ = [
    "DEFAULT_DIM",
    "FEATURE_BITS",
    "SPARSE_QUERY_RATIO",
    "Embedder",
    "HashEmbedder",
    "column_scores",
    "cosine",
    "cosine_top",
    "load_embedder",
    "prepare_matrix",
    "stack_bytes",
    "text_features",
    "to_bytes",
    "top_rows",
]

#: Texts embedded per numpy accumulation batch; bounds the float64 scratch matrix to ~12 MB.
BATCH_ROWS: Final = 4096
#: Rows laid out column-major per step by :func:`prepare_matrix`: 128 rows of 384 float32
#: (192 KiB) are read and written within the CPU's cache, four times faster at 30,000 rows
#: than numpy's one pass over the whole matrix (docs/benchmarks.md).
LAYOUT_BLOCK_ROWS: Final = 128


@runtime_checkable
class Embedder(Protocol):
    """What recall needs from an embedder: fixed-size float32 unit vectors for texts."""

    dim: int
    name: str

    def embed(self, text: str) -> np.ndarray:
        """Embed one text as a ``(dim,)`` float32 vector."""
        ...

    def embed_many(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts as an ``(n, dim)`` float32 matrix, one row per text."""
        ...


class HashEmbedder:
    """Deterministic signed feature-hashing embedder (no model, no I/O, same bytes everywhere).

    Each feature hashes to a ``FEATURE_BITS``-bit code: its top bit is the sign, the code
    modulo ``dim`` the bucket. ``name`` encodes the algorithm version and dimension; an index
    that stores vectors should re-embed when the name it recorded differs.
    """

    def __init__(self, dim: int = DEFAULT_DIM) -> None:
        """Create an embedder producing ``dim``-dimensional vectors."""
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 8:
            raise BadInput(f"hash embedder dimension must be an integer >= 8, got {dim!r}")
        self.dim: int = dim
        self.name: str = model_name(dim)
        self._chunk_codes = FeatureCodes()

    def embed(self, text: str) -> np.ndarray:
        """Embed one text as a ``(dim,)`` float32 unit vector (all zeros for featureless text)."""
        vec = np.zeros(self.dim, dtype=np.float32)
        for bucket, value in sparse_vector(text, self.dim, self._chunk_codes):
            vec[bucket] = value
        return vec

    def embed_many(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts as an ``(n, dim)`` float32 matrix of unit rows (zero rows if empty)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        step = max(1, min(BATCH_ROWS, 1 << (63 - FEATURE_BITS)))
        for start in range(0, len(texts), step):
            batch = texts[start : start + step]
            out[start : start + len(batch)] = self._embed_batch(batch)
        return out

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed one batch: gather feature codes, count tf per (row, feature), one bincount."""
        dim = self.dim
        codes: list[int] = []
        counts: list[int] = []
        features_of = self._chunk_codes.of
        for text in texts:
            found = features_of(text)
            codes.extend(found)
            counts.append(len(found))
        rows = len(counts)
        if not codes:
            return np.zeros((rows, dim), dtype=np.float32)
        row_of = np.repeat(np.arange(rows, dtype=np.int64), counts)
        keys = np.sort(np.array(codes, dtype=np.int64) | (row_of << FEATURE_BITS))
        first = np.ones(keys.size, dtype=bool)
        np.not_equal(keys[1:], keys[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        tf = np.diff(np.append(starts, keys.size))
        keys = keys[starts]
        code = keys & FEATURE_MASK
        signs = np.where(code >> (FEATURE_BITS - 1), 1.0, -1.0)
        flat = (keys >> FEATURE_BITS) * dim + code % dim
        sums = np.bincount(flat, weights=(1.0 + np.log(tf)) * signs, minlength=rows * dim)
        return _normalize_rows(sums.reshape(rows, dim))


def _normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """L2-normalize each row in float64 and return float32; all-zero rows stay zero."""
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    safe = np.where(norms > 0.0, norms, 1.0)
    return (matrix / safe[:, None]).astype(np.float32)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors; 0.0 when either is all zeros (never NaN)."""
    x = np.asarray(a, dtype=np.float32).ravel()
    y = np.asarray(b, dtype=np.float32).ravel()
    denom = float(np.linalg.norm(x)) * float(np.linalg.norm(y))
    if denom == 0.0 or not math.isfinite(denom):
        return 0.0
    value = float(np.dot(x, y)) / denom
    return value if math.isfinite(value) else 0.0


def prepare_matrix(matrix: np.ndarray) -> np.ndarray:
    """Lay a stack of embeddings out for ``cosine_top``: float32, column-major (Fortran order).

    Column-major lets a sparse query (every hash-bag query touches a few dozen of the 384
    dimensions) read only its own columns instead of the whole matrix.
    """
    if matrix.ndim != 2 or (matrix.dtype == np.float32 and matrix.flags.f_contiguous):
        return np.asfortranarray(matrix, dtype=np.float32)  # as numpy lays it out (or keeps it)
    out = np.empty(matrix.shape, dtype=np.float32, order="F")
    for start in range(0, matrix.shape[0], LAYOUT_BLOCK_ROWS):
        out[start : start + LAYOUT_BLOCK_ROWS] = matrix[start : start + LAYOUT_BLOCK_ROWS]
    return out


def column_scores(matrix: np.ndarray, weights: Sequence[tuple[int, float]]) -> np.ndarray:
    """Every row's dot product with a sparse query, reading only the query's columns.

    ``weights`` are ``(column, weight)`` pairs from :func:`recall.ranking.hashbag.query_weights`;
    products and sums are float64, column after column in that order, exactly as the
    plain-Python scorer of :mod:`recall.ranking.lean_semantic` does them, so both give the
    same scores to the last bit. Each product is asked for in float64 explicitly: numpy 1.x
    would otherwise keep a float32 column times a float64 scalar in float32.
    """
    (first, weight), *rest = weights
    scores = np.multiply(matrix[:, first], np.float64(weight), dtype=np.float64)
    scratch = np.empty_like(scores)
    for column, weight in rest:
        np.multiply(matrix[:, column], np.float64(weight), out=scratch, dtype=np.float64)
        scores += scratch
    return scores


def top_rows(scores: np.ndarray, k: int, min_score: float | None) -> list[tuple[int, float]]:
    """The ``k`` best ``(row, score)`` pairs, best first, ties by row; NaN never surfaces."""
    floor = -np.inf if min_score is None else min_score
    candidates = np.flatnonzero(scores >= floor)  # NaN compares false
    candidates = candidates[scores[candidates] > -np.inf]
    if k < candidates.size:
        kth = np.partition(scores[candidates], candidates.size - k)[candidates.size - k]
        candidates = candidates[scores[candidates] >= kth]  # keeps every row tied with the kth
    picked = scores[candidates]
    order = candidates[np.lexsort((candidates, -picked))][:k]
    return [(int(i), float(scores[i])) for i in order]


def cosine_top(
    query: np.ndarray, matrix: np.ndarray, k: int, *, min_score: float | None = None
) -> list[tuple[int, float]]:
    """The ``k`` rows of ``matrix`` most similar to ``query``, best first, as (row, score).

    Rows are expected to be unit vectors (as every embedder here returns them), so the
    score is the cosine; the query is normalized here. A sparse query (every hash-bag query
    touches a few dozen of the 384 dimensions) is scored column by column in float64
    (:func:`column_scores`; fastest on a matrix from ``prepare_matrix``), a dense one by one
    float32 matrix-vector product (never float16). Ties order by row index. A zero query
    carries no signal and returns ``[]``; rows scoring below ``min_score`` are dropped; NaN
    rows never surface.
    """
    if k <= 0:
        return []
    mat = np.asarray(matrix, dtype=np.float32)
    vec = np.asarray(query, dtype=np.float32).ravel()
    if mat.ndim != 2 or mat.shape[1] != vec.shape[0]:
        raise ValueError(f"cosine_top: query of size {vec.shape[0]} vs matrix {mat.shape}")
    nonzero = np.flatnonzero(vec)
    if mat.shape[0] == 0 or nonzero.size == 0:
        return []
    if is_sparse(int(nonzero.size), int(vec.size)):
        weights = query_weights([(int(j), float(vec[j])) for j in nonzero])
        if not weights:
            return []
        scores = column_scores(mat, weights)
    else:
        norm = float(np.linalg.norm(vec))
        if not math.isfinite(norm) or norm == 0.0:
            return []
        scores = mat @ (vec / np.float32(norm))
    return top_rows(scores, k, min_score)


def to_bytes(vec: np.ndarray) -> bytes:
    """Serialize a vector as little-endian float32 bytes, dense (the index stores the shorter
    form of :func:`recall.ranking.vector_blobs.pack_rows`; both read back the same)."""
    return np.ascontiguousarray(vec, dtype="<f4").tobytes()


def from_bytes(blob: bytes, dim: int | None = None) -> np.ndarray:
    """Deserialize a stored vector into a writable float32 vector: dense bytes as written by
    ``to_bytes``, or, given its width ``dim``, either stored form."""
    if dim is not None:
        return unpack_rows([blob], dim)[0]
    if len(blob) % 4:
        raise ValueError(f"embedding blob of {len(blob)} bytes is not a whole float32 vector")
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def stack_bytes(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """Deserialize stored vectors (either form) into an ``(n, dim)`` matrix laid out by
    ``prepare_matrix``."""
    return prepare_matrix(unpack_rows(blobs, dim))


class _ProviderEmbedder:
    """Wraps a configured provider so recall always gets finite float32 unit vectors."""

    def __init__(self, inner: Any, spec: str) -> None:
        """Validate that ``inner`` looks like an embedder and remember where it came from."""
        dim = getattr(inner, "dim", None)
        if not isinstance(dim, int) or isinstance(dim, bool) or dim <= 0:
            raise BadInput(f"embedder {spec!r}: 'dim' must be a positive integer, got {dim!r}")
        for method in ("embed", "embed_many"):
            if not callable(getattr(inner, method, None)):
                raise BadInput(f"embedder {spec!r}: missing method {method}()")
        self._inner = inner
        self._spec = spec
        self.dim: int = dim
        # The dimension is part of the name vectors are stored under: a provider that changes
        # its size under the same name has every memory embedded again, not misread.
        self.name: str = f"{getattr(inner, 'name', spec)}-{dim}"

    def _coerce(self, raw: Any, rows: int) -> np.ndarray:
        """Turn a provider result into an ``(rows, dim)`` float32 matrix of unit rows."""
        try:
            matrix = np.asarray(raw, dtype=np.float64).reshape(rows, self.dim)
        except (TypeError, ValueError) as exc:
            raise EmbedderFailed(
                f"embedder {self._spec!r} returned data that is not {rows} x {self.dim}: {exc}"
            ) from exc
        matrix = np.where(np.isfinite(matrix), matrix, 0.0)
        return _normalize_rows(matrix)

    def _ask(self, method: str, argument: Any) -> Any:
        try:
            return getattr(self._inner, method)(argument)
        except Exception as exc:  # a provider's own failure: a network, a model, a bug
            raise EmbedderFailed(
                f"embedder {self._spec!r}: {method}() failed ({type(exc).__name__}: {exc})"
            ) from exc

    def embed(self, text: str) -> np.ndarray:
        """Embed one text through the provider as a float32 unit vector."""
        return self._coerce(self._ask("embed", text), 1)[0]

    def embed_many(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts through the provider as an ``(n, dim)`` float32 matrix."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._coerce(self._ask("embed_many", list(texts)), len(texts))


def load_embedder(spec: str | None) -> Embedder:
    """The embedder named by configuration.

    ``None``, ``""`` or ``"hash"`` give the default ``HashEmbedder``. ``"package.module:Attr"``
    imports the module (only now, never on the default path), takes ``Attr`` (dots allowed)
    and, if it is a class or factory, calls it without arguments. Any failure is a
    ``BadInput`` naming the spec.
    """
    if spec is None or not spec.strip() or spec.strip() == "hash":
        return HashEmbedder()
    spec = spec.strip()
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise BadInput(f"embedder {spec!r}: expected 'hash' or 'package.module:ClassName'")
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise BadInput(
            f"embedder {spec!r}: cannot import module {module_name!r} ({type(exc).__name__}: {exc})"
        ) from exc
    for attr in attr_path.split("."):
        try:
            target = getattr(target, attr)
        except AttributeError as exc:
            raise BadInput(
                f"embedder {spec!r}: {module_name!r} has no attribute {attr_path!r}"
            ) from exc
    if isinstance(target, type) or (callable(target) and not hasattr(target, "embed")):
        try:
            target = target()
        except Exception as exc:
            raise BadInput(
                f"embedder {spec!r}: creating it failed ({type(exc).__name__}: {exc})"
            ) from exc
    return _ProviderEmbedder(target, spec)
