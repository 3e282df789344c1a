"""The returned hits spread over what they are about.

A hit naming the same files as a hit placed above it adds little to what the reader already
has: three notes on one change set can fill the three places an agent reads while a note on
other files scores nearly as well. The best hits are placed one at a time, each time the one
whose score, less ``REDUNDANCY_PENALTY`` times its largest likeness to those already placed,
is highest. The likeness of two hits is the Jaccard index of the files they name; a hit
naming no file is like no other.

The engine spreads the ``SPREAD_POOL`` best whatever the limit asked for, so a short list is
the head of a long one. A caller that shows only some of the hits (the trust gate, the
injection's strong hits) places them again among themselves (:func:`respread`): a hit that
is not shown takes nothing from one that is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from recall.ranking import weights as W
from recall.ranking.hits import Hit

SIGNAL: str = "redundant"
"""The signal (negative) a hit carries when it gave up some of its score here."""


def likeness(a: frozenset[str], b: frozenset[str]) -> float:
    """The Jaccard index of two sets of files: shared over named by either (0 if either is
    empty)."""
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared) if shared else 0.0


def place(scores: Sequence[float], files: Sequence[frozenset[str]]) -> list[tuple[int, float]]:
    """The order the module's greedy placing gives the first ``SPREAD_POOL`` of ``scores``
    (best first, with the files each names), then the rest as they are: (index, score given
    up) for each."""
    pool = min(len(scores), W.SPREAD_POOL)
    rest = [(k, 0.0) for k in range(pool, len(scores))]
    if W.REDUNDANCY_PENALTY <= 0.0 or pool < 2:
        return [(k, 0.0) for k in range(pool)] + rest
    likest = [0.0] * pool  # each unplaced one's largest likeness to a placed one
    left = list(range(pool))
    placed: list[tuple[int, float]] = []
    while left:
        best = max(left, key=lambda k: (scores[k] - W.REDUNDANCY_PENALTY * likest[k], -k))
        left.remove(best)
        placed.append((best, W.REDUNDANCY_PENALTY * likest[best]))
        for k in left:
            likest[k] = max(likest[k], likeness(files[k], files[best]))
    return placed + rest


def given_up(hit: Hit, loss: float) -> Hit:
    """``hit`` with ``loss`` taken from its score and kept as the ``redundant`` signal."""
    if loss <= 0.0:
        return hit
    return dataclasses.replace(hit, score=hit.score - loss, signals={**hit.signals, SIGNAL: -loss})


def spread(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` (best first) with the first ``SPREAD_POOL`` placed greedily as the module
    says, each that gave up score carrying the loss as the ``redundant`` signal and in its
    score; the hits past the pool follow it as they came (one may score above a pool hit
    that gave up some: a longer list must keep a shorter one as its head, and a shorter one
    never saw it). Equal scores keep their order."""
    order = place([hit.score for hit in hits], [frozenset(hit.memory.files) for hit in hits])
    return [given_up(hits[k], loss) for k, loss in order]


def respread(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` (some of a recall's, in its order) placed again among themselves: each hit's
    score and signals as they were before the spread, then :func:`spread`."""
    whole = [
        dataclasses.replace(
            hit,
            score=hit.score - hit.signals[SIGNAL],
            signals={k: v for k, v in hit.signals.items() if k != SIGNAL},
        )
        if SIGNAL in hit.signals
        else hit
        for hit in hits
    ]
    whole.sort(key=lambda hit: (-hit.score, hit.memory.id))
    return spread(whole)
