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
from array import array
from collections.abc import Sequence
from itertools import repeat
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


def top_rows(scores: Sequence[float], k: int, min_score: float | None) -> list[tuple[int, float]]:
    """The ``k`` best ``(row, score)`` pairs, best first, ties by row; NaN never surfaces."""
    if k <= 0:
        return []
    floor = -math.inf if min_score is None else min_score
    candidates = [i for i, score in enumerate(scores) if score >= floor and score > -math.inf]
    best = heapq.nsmallest(k, candidates, key=lambda i: (-scores[i], i))
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
    return [
        (rowids[row], score)
        for row, score in top_rows(column_scores(found.columns, weights), k, min_score)
    ]
