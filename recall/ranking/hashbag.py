"""The hash-bag features of a text and one text's sparse vector, in plain Python (no numpy).

A text becomes a bag of features (lower-cased words plus the parts and the joined form of
every identifier, so ``safeRename``, ``safe_rename`` and ``safe-rename`` share features with
"safe rename"), each feature is hashed with a keyed BLAKE2b (stable across processes and
machines, unlike ``hash()``) to one of ``dim`` buckets with a sign, weighted by sublinear term
frequency ``1 + ln(tf)``, and the vector is L2-normalized to float32.

Everything a short-lived process needs to embed one prompt lives here, so a hook can rank by
similarity without importing numpy; :mod:`recall.ranking.embedding` builds its matrices from
the same features and codes.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Sequence
from itertools import chain, groupby
from typing import Final

# The same function as ``hashlib.blake2b``, taken from its own module: ``hashlib`` loads OpenSSL
# at import, which every prompt hook would pay for a hash it never uses. ``_blake2`` is private to
# CPython; an interpreter without it is given ``hashlib``'s.
try:
    from _blake2 import blake2b
except ImportError:
    from hashlib import blake2b

DEFAULT_DIM: Final = 384
#: Bits of a feature's hash kept; the batch row sits above them in one int64 sort key, so a
#: batch may hold at most 2**(63 - FEATURE_BITS) rows.
FEATURE_BITS: Final = 44
FEATURE_MASK: Final = (1 << FEATURE_BITS) - 1
#: Word chunks whose feature hashes are cached before the cache is dropped and rebuilt.
CACHE_LIMIT: Final = 1 << 16
_HASH_KEY: Final = b"tether-hashbag-1"
#: A query with at most 1/SPARSE_QUERY_RATIO nonzero dimensions takes the column-gather path.
SPARSE_QUERY_RATIO: Final = 4

# A word chunk: letters/digits, with inner ``_`` or ``-`` separators kept for identifier splits.
CHUNK = re.compile(r"[^\W_]++(?:[_\-]++[^\W_]++)*+")
# The same chunks in a text that is all ASCII (where ``[^\W_]`` is exactly ``[A-Za-z0-9]``), found
# in about half the time: a plain class instead of a Unicode category test per character.
ASCII_CHUNK = re.compile(r"[A-Za-z0-9]++(?:[_\-]++[A-Za-z0-9]++)*+")
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


def model_name(dim: int) -> str:
    """The name vectors of this algorithm are stored under (a new algorithm needs a new name)."""
    return f"hash-bag-v1-{dim}"


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
    for match in CHUNK.finditer(text):
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


class FeatureCodes(dict[str, tuple[int, ...]]):
    """Word chunk -> feature codes, computed on first lookup (features never span chunks).

    A code keeps ``FEATURE_BITS`` bits of the feature's hash: its top bit is the sign, the
    code modulo ``dim`` the bucket.
    """

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

    def of(self, text: str) -> list[int]:
        """Every feature code of ``text``, in order, duplicates kept."""
        if len(self) >= CACHE_LIMIT:
            self.clear()
        if not text:
            return []
        chunks = (ASCII_CHUNK if text.isascii() else CHUNK).findall(text)
        return list(chain.from_iterable(map(self.__getitem__, chunks)))


def sparse_vector(text: str, dim: int, codes: FeatureCodes) -> list[tuple[int, float]]:
    """The nonzero ``(bucket, value)`` pairs of ``text``'s unit vector, by bucket.

    Values are float32 (as stored vectors are). The buckets are summed in the order of the
    features' codes, as the batch embedder's single pass does, so one text embedded either
    way gives the same float32 vector.
    """
    found = codes.of(text)
    if not found:
        return []
    found.sort()
    sums: dict[int, float] = {}
    sign_bit = FEATURE_BITS - 1
    for code, group in groupby(found):
        tf = sum(1 for _ in group)
        weight = (1.0 + math.log(tf)) * (1.0 if code >> sign_bit else -1.0)
        bucket = code % dim
        sums[bucket] = sums.get(bucket, 0.0) + weight
    buckets = sorted(sums)
    norm = math.sqrt(sum(sums[b] * sums[b] for b in buckets))
    if norm == 0.0 or not math.isfinite(norm):
        return []
    values = array("f", [sums[b] / norm for b in buckets])  # rounds to float32
    return [(b, v) for b, v in zip(buckets, values, strict=True) if v != 0.0]


def query_weights(pairs: Sequence[tuple[int, float]]) -> list[tuple[int, float]]:
    """A query's nonzero ``(dimension, value)`` pairs scaled to unit length, in float64.

    The norm is an exactly rounded sum (``math.fsum``), so every scorer that takes these
    weights and adds its columns in this order gets the same scores to the last bit.
    Empty when the query has no length.
    """
    norm = math.sqrt(math.fsum(v * v for _, v in pairs))
    if norm == 0.0 or not math.isfinite(norm):
        return []
    return [(j, v / norm) for j, v in sorted(pairs) if v != 0.0]


def is_sparse(nonzero: int, dim: int) -> bool:
    """Whether a query touches few enough dimensions to be scored column by column."""
    return nonzero > 0 and nonzero * SPARSE_QUERY_RATIO <= dim
