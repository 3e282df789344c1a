"""The semantic channel without numpy, for short-lived processes (a hook, ``tether inject``).

Importing numpy costs a hook 45–110 ms; scoring one sparse hash-bag query against the cached
matrix in plain Python reads only the query's few columns and costs a few milliseconds at
10,000 memories. The arithmetic is the one :func:`recall.ranking.embedding.column_scores` and
:func:`recall.ranking.embedding.top_rows` do (float64, column after column, ties by row), so a hook
ranks exactly as the language server does.
"""

from __future__ import annotations

import heapq
import math
import sqlite3
import sys
from array import array
from collections.abc import Iterable, Sequence
from itertools import compress, repeat
from operator import add, mul
from pathlib import Path
from typing import Final

from recall.ranking.vector_cache import cache_stamp, read_columns, rows_cached, vectors_complete

MAX_PRODUCTS: Final = 1_000_000
"""Rows x query dimensions scored in plain Python at most (about 50 ms here); beyond that
importing numpy is the cheaper way."""


def column_scores(columns: dict[int, array], weights: Sequence[tuple[int, float]]) -> list[float]:
    """Every row's dot product with the query: float64, column after column in ``weights``'s
    order."""
    (first, weight), *rest = weights
    scores = list(map(mul, columns[first], repeat(weight)))
    for column, weight in rest:
        scores = list(map(add, scores, map(mul, columns[column], repeat(weight))))
    return scores


def sparse_column_scores(
    columns: dict[int, array], weights: Sequence[tuple[int, float]], rows: int
) -> list[float]:
    """:func:`column_scores` over each column's nonzero entries only (most hash-bag columns are
    nonzero on a few percent of the memories).

    A row's score is the same to the last bit wherever it is not zero: the products it skips
    are zeros, and adding a zero changes no sum that is not zero. A row whose products are all
    zero scores 0.0 where :func:`column_scores` may give -0.0, so this is only for a positive
    ``min_score`` (where no zero is ever kept).
    """
    scores = [0.0] * rows
    everyone = range(rows)
    for column, weight in weights:
        values = columns[column]
        for row in compress(everyone, nonzero_mask(values)):
            scores[row] += values[row] * weight
    return scores


_NO_SIGN = bytes(byte & 0x7F for byte in range(256))
_TOP_BYTE = 3 if sys.byteorder == "little" else 0


def nonzero_mask(values: array) -> bytes:
    """One byte per float32 of ``values``, nonzero where the value is not ±0.0 (NaN and
    subnormals included), made from the bytes without a Python float per value."""
    if values.typecode != "f":
        raise ValueError(f"nonzero_mask takes float32 values, not {values.typecode!r}")
    raw = values.tobytes()
    mask = 0
    for offset in range(4):  # each byte of every value, as one big integer per byte position
        plane = raw[offset::4]
        if offset == _TOP_BYTE:
            plane = plane.translate(_NO_SIGN)  # the sign bit alone does not make a value nonzero
        mask |= int.from_bytes(plane, "little")
    return mask.to_bytes(len(values), "little")


def top_rows(
    scores: Sequence[float], k: int, min_score: float | None, among: Iterable[int] | None = None
) -> list[tuple[int, float]]:
    """The ``k`` best ``(row, score)`` pairs, best first, ties by row; NaN never surfaces.
    ``among``: the rows that may qualify, ascending (the others are known to score below
    ``min_score``); every row when None."""
    if k <= 0:
        return []
    floor = -math.inf if min_score is None else min_score
    rows = range(len(scores)) if among is None else among
    candidates = [i for i in rows if scores[i] >= floor and scores[i] > -math.inf]
    if len(candidates) > k:
        # the k-th best score, compared as plain floats; only rows reaching it (ties too) are
        # then ordered, instead of a key per candidate (tens of thousands at 30k memories)
        kth = heapq.nlargest(k, [scores[i] for i in candidates])[-1]
        candidates = [i for i in candidates if scores[i] >= kth]
    best = sorted(candidates, key=lambda i: (-scores[i], i))[:k]
    return [(i, scores[i]) for i in best]


def similar(
    conn: sqlite3.Connection,
    cache_dir: Path | None,
    model: str,
    dim: int,
    weights: Sequence[tuple[int, float]],
    k: int,
    min_score: float | None,
) -> list[tuple[int, float]] | None:
    """The ``k`` memories (rowid, cosine) nearest the query, or None when this path cannot
    answer: vectors still to compute, no usable cache for the index's state, or a query too
    large for plain Python. The caller then takes the numpy path (which also fills the cache).
    """
    if cache_dir is None or not weights or not vectors_complete(conn, model):
        return None
    stamp = cache_stamp(conn, model, dim)
    rows = rows_cached(cache_dir, stamp, dim)
    if rows is None or rows * len(weights) > MAX_PRODUCTS:
        return None
    found = read_columns(cache_dir, stamp, dim, [column for column, _ in weights])
    if found is None:
        return None
    if not found.rowids:
        return []
    rowids = found.rowids
    if min_score is not None and min_score > 0:
        scores = sparse_column_scores(found.columns, weights, len(rowids))
        # a row scoring zero is below the floor: only the others can qualify
        best = top_rows(scores, k, min_score, among=compress(range(len(scores)), scores))
    else:
        best = top_rows(column_scores(found.columns, weights), k, min_score)
    return [(rowids[row], score) for row, score in best]
