"""Text embeddings for the semantic channel: a deterministic hash-bag default and a provider hook.

The default embedder needs no model, no network and no stored state. A text becomes a bag of
features (lower-cased words plus the parts and the joined form of every identifier, so
``safeRename``, ``safe_rename`` and ``safe-rename`` share features with "safe rename"), each
feature is hashed with a keyed BLAKE2b (stable across processes and machines, unlike
``hash()``) to one of ``dim`` buckets with a sign, weighted by sublinear term frequency
``1 + ln(tf)``, and the vector is L2-normalized to float32. Cosine is then a dot product.

A provider embedder (a real model) can be configured as ``"package.module:ClassName"``; it is
imported only when configured, and its output is coerced to the same float32 unit vectors.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Sequence
from hashlib import blake2b
from itertools import chain
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np

from recall.errors import BadInput

DEFAULT_DIM: Final = 384
#: Texts embedded per numpy accumulation batch; bounds the float64 scratch matrix to ~12 MB.
BATCH_ROWS: Final = 4096
#: Bits of a feature's hash kept; the batch row sits above them in one int64 sort key, so a
#: batch may hold at most 2**(63 - FEATURE_BITS) rows.
FEATURE_BITS: Final = 44
_FEATURE_MASK: Final = (1 << FEATURE_BITS) - 1
#: Word chunks whose feature hashes are cached before the cache is dropped and rebuilt.
CACHE_LIMIT: Final = 1 << 16
_HASH_KEY: Final = b"tether-hashbag-1"
#: A query with at most 1/SPARSE_QUERY_RATIO nonzero dimensions takes the column-gather path.
SPARSE_QUERY_RATIO: Final = 4

# A word chunk: letters/digits, with inner ``_`` or ``-`` separators kept for identifier splits.
_CHUNK = re.compile(r"[^\W_]++(?:[_\-]++[^\W_]++)*+")
_SEPARATORS = re.compile(r"[_\-]++")
# camelCase / PascalCase / acronym / digit boundaries inside an ASCII piece.
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# English function words: shared by almost every text, so they only add cosine noise.
_STOPWORD_TEXT: Final = """
a an and are as at be been but by can could did do does doing for from had has have how i if
in into is it its me my no not of on or our should so than that the their them then there
these they this those to too us was we were what when where which while who why will with
would you your
"""
_STOPWORDS: Final = frozenset(_STOPWORD_TEXT.split())


def _fold(word: str) -> str:
    """Fold a plain English plural onto its singular (``devices`` -> ``device``)."""
    if len(word) > 3 and word[-1] == "s" and word[-2] not in "sui" and word.isalpha():
        return word[:-1]
    return word


def _split_unicode(piece: str) -> list[str]:
    """Split a non-ASCII piece at lower-to-upper and letter/digit boundaries."""
    parts: list[str] = []
    start = 0
    for i in range(1, len(piece)):
        prev, ch = piece[i - 1], piece[i]
        if (prev.islower() and ch.isupper()) or (prev.isdigit() != ch.isdigit()):
            parts.append(piece[start:i])
            start = i
    parts.append(piece[start:])
    return parts


def text_features(text: str) -> list[str]:
    """The hashed features of a text, in order, duplicates kept (they carry term frequency).

    Every word chunk yields its lower-cased identifier parts (camelCase, PascalCase,
    snake_case, kebab-case and letter/digit boundaries), minus one-character parts and
    English stopwords, with plain plurals folded to the singular; a chunk with several parts
    also yields their concatenation, so ``safeRename`` gives ``saferename``, ``safe``,
    ``rename``. Paths split on ``/`` and ``.`` (``auth/middleware.ts`` gives ``auth``,
    ``middleware``, ``ts``).
    """
    out: list[str] = []
    for match in _CHUNK.finditer(text):
        chunk = match.group()
        if chunk.isalpha() and chunk.islower():
            if len(chunk) > 1 and chunk not in _STOPWORDS:
                out.append(_fold(chunk))
            continue
        parts: list[str] = []
        for piece in _SEPARATORS.split(chunk):
            found = _CAMEL.findall(piece) if piece.isascii() else _split_unicode(piece)
            parts.extend(p.lower() for p in found)
        if len(parts) > 1:
            out.append(_fold("".join(parts)))
        out.extend(_fold(p) for p in parts if len(p) > 1 and p not in _STOPWORDS)
    return out


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


class _ChunkCodes(dict[str, tuple[int, ...]]):
    """Word chunk -> feature codes, computed on first lookup (features never span chunks)."""

    def __missing__(self, chunk: str) -> tuple[int, ...]:
        """Hash the features of an unseen chunk and remember them."""
        codes = tuple(
            int.from_bytes(
                blake2b(f.encode("utf-8", "surrogatepass"), digest_size=8, key=_HASH_KEY).digest(),
                "little",
            )
            >> (64 - FEATURE_BITS)
            for f in text_features(chunk)
        )
        self[chunk] = codes
        return codes


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
        self.name: str = f"hash-bag-v1-{dim}"
        self._chunk_codes = _ChunkCodes()

    def embed(self, text: str) -> np.ndarray:
        """Embed one text as a ``(dim,)`` float32 unit vector (all zeros for featureless text)."""
        return self.embed_many([text])[0]

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
        if len(self._chunk_codes) >= CACHE_LIMIT:
            self._chunk_codes.clear()
        dim = self.dim
        codes: list[int] = []
        counts: list[int] = []
        lookup = self._chunk_codes.__getitem__
        findall = _CHUNK.findall
        for text in texts:
            before = len(codes)
            if text:
                codes.extend(chain.from_iterable(map(lookup, findall(text))))
            counts.append(len(codes) - before)
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
        code = keys & _FEATURE_MASK
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
    return np.asfortranarray(matrix, dtype=np.float32)


def _scores(mat: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """Dot products of every row with ``vec`` in float32.

    With a column-major matrix and a sparse query, only the query's nonzero columns are read
    (one contiguous axpy each); otherwise one dense matrix-vector product.
    """
    if mat.flags.f_contiguous and not mat.flags.c_contiguous:
        nonzero = np.flatnonzero(vec)
        if nonzero.size > 0 and nonzero.size * SPARSE_QUERY_RATIO <= vec.size:
            scores = mat[:, nonzero[0]] * vec[nonzero[0]]
            scratch = np.empty_like(scores)
            for j in nonzero[1:]:
                np.multiply(mat[:, j], vec[j], out=scratch)
                scores += scratch
            return scores
    return mat @ vec


def cosine_top(
    query: np.ndarray, matrix: np.ndarray, k: int, *, min_score: float | None = None
) -> list[tuple[int, float]]:
    """The ``k`` rows of ``matrix`` most similar to ``query``, best first, as (row, score).

    Rows are expected to be unit vectors (as every embedder here returns them), so the
    score is the cosine; the query is normalized here. Scores are float32 products (never
    float16) and the top ``k`` are chosen with ``argpartition``; ties order by row index. A
    matrix from ``prepare_matrix`` is fastest: a sparse query then reads only its columns.
    A zero query carries no signal and returns ``[]``; rows scoring below ``min_score`` are
    dropped; NaN rows never surface.
    """
    if k <= 0:
        return []
    mat = np.asarray(matrix, dtype=np.float32)
    vec = np.asarray(query, dtype=np.float32).ravel()
    if mat.ndim != 2 or mat.shape[1] != vec.shape[0]:
        raise ValueError(f"cosine_top: query of size {vec.shape[0]} vs matrix {mat.shape}")
    norm = float(np.linalg.norm(vec))
    if mat.shape[0] == 0 or norm == 0.0 or not math.isfinite(norm):
        return []
    scores = _scores(mat, vec / np.float32(norm))
    scores = np.where(np.isnan(scores), np.float32(-np.inf), scores)
    n = scores.shape[0]
    picked = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    order = picked[np.lexsort((picked, -scores[picked]))]
    floor = -np.inf if min_score is None else min_score
    return [(int(i), float(scores[i])) for i in order if scores[i] >= floor and scores[i] > -np.inf]


def to_bytes(vec: np.ndarray) -> bytes:
    """Serialize a vector as little-endian float32 bytes (for an SQLite BLOB)."""
    return np.ascontiguousarray(vec, dtype="<f4").tobytes()


def from_bytes(blob: bytes) -> np.ndarray:
    """Deserialize bytes written by ``to_bytes`` into a writable float32 vector."""
    if len(blob) % 4:
        raise ValueError(f"embedding blob of {len(blob)} bytes is not a whole float32 vector")
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def stack_bytes(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """Deserialize ``to_bytes`` blobs into an ``(n, dim)`` matrix laid out by ``prepare_matrix``."""
    expected = dim * 4
    for row, blob in enumerate(blobs):
        if len(blob) != expected:
            raise ValueError(f"embedding blob {row} has {len(blob)} bytes, expected {expected}")
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    joined = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim)
    return prepare_matrix(joined)


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
        self.name: str = str(getattr(inner, "name", spec))

    def _coerce(self, raw: Any, rows: int) -> np.ndarray:
        """Turn a provider result into an ``(rows, dim)`` float32 matrix of unit rows."""
        try:
            matrix = np.asarray(raw, dtype=np.float64).reshape(rows, self.dim)
        except (TypeError, ValueError) as exc:
            raise BadInput(
                f"embedder {self._spec!r} returned data that is not {rows} x {self.dim}: {exc}"
            ) from exc
        matrix = np.where(np.isfinite(matrix), matrix, 0.0)
        return _normalize_rows(matrix)

    def embed(self, text: str) -> np.ndarray:
        """Embed one text through the provider as a float32 unit vector."""
        return self._coerce(self._inner.embed(text), 1)[0]

    def embed_many(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts through the provider as an ``(n, dim)`` float32 matrix."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._coerce(self._inner.embed_many(list(texts)), len(texts))


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
