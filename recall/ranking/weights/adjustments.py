"""Adjustments after fusion: recency, feedback (acted on, ignored), pinning, the learned
ranker switch."""

from __future__ import annotations

import math
from typing import Final

# --- recency ----------------------------------------------------------------------------

#: Largest recency boost: freshness breaks ties, it does not decide relevance (knowledge
#: about code stays true for years; the fix histories show a median gap of 300+ days), but
#: the change a fix goes back to is often among the latest on its file, and 0.02 was too
#: small to order a crowded file's equally matched memories. 0.06, not 0.04: pre-cut hit@3
#: 0 / +0.008 / +0.012 / +0.020 on iproute2 / rdma-core / optee / networkmanager (250 tasks
#: each); 0.08 gained more on the last two and cost iproute2 0.012.
RECENCY_MAX: Final = 0.06

#: Days for the recency boost to halve; anchored on the last action (or creation), never on
#: being shown, so display alone keeps nothing fresh. A year: the change a fix goes back to is
#: a median 300+ days old, where a half-year half-life had left under a third of the boost.
RECENCY_HALF_LIFE_DAYS: Final = 365.0

#: A second, short time scale on top: up to 0.01 more for a memory of the last weeks,
#: halving every 10 days. A fix often follows the change it repairs within days (the
#: relevant memory is under 7 days old for 8-45% of the pre-cut tasks of the four shared
#: histories), which a yearly half-life cannot tell from last month. Pre-cut hit@3
#: 0 / +0.028 / +0.004 / 0 (iproute2 / networkmanager / optee / rdma-core, 250 tasks each);
#: 0.015 cost rdma-core 0.012. Small against a file hit's spread (0.25-0.40): it orders
#: equally matched memories, it does not decide relevance.
FRESH_MAX: Final = 0.01

#: Days for the short-scale boost to halve (7 to 14 measured alike; 30 cost iproute2).
FRESH_HALF_LIFE_DAYS: Final = 10.0

# --- feedback ---------------------------------------------------------------------------

#: Surfacings with no follow-up before the ignore penalty starts.
IGNORE_PENALTY_START: Final = 4

#: Penalty added per ignored surfacing from the fourth on (4 -> -0.03, 7+ -> -0.12).
IGNORE_PENALTY_STEP: Final = 0.03

#: Deepest ignore penalty: enough to step back from rotation, not to vanish; archiving is a
#: lifecycle decision, not a ranking one.
IGNORE_PENALTY_MAX: Final = 0.12

#: Acted-on bonus per unit of ln(1 + acted): the first uses count most.
ACTED_BONUS_SCALE: Final = 0.02

#: Largest acted-on bonus (reached at about 12 actions).
ACTED_BONUS_MAX: Final = 0.05

# --- pinned -----------------------------------------------------------------------------

#: A pinned memory was declared important by a person: it ranks above equally matched
#: peers, but an unrelated pin does not beat a direct file hit (0.10 < 0.25).
PINNED_BONUS: Final = 0.10

# --- returned hits spread over their files ------------------------------------------------

#: Score a returned hit gives up per unit of likeness (Jaccard of the files it names) to the
#: likest hit placed above it (``recall.ranking.diversify``): three notes on one change set
#: should not fill the three places an agent reads when a note on other files scores nearly
#: as well. Chosen on the pre-cut tasks of the four shared histories: rehearsal hit@3 0.614 /
#: 0.462 / 0.653 / 0.540 -> 0.625 / 0.475 / 0.658 / 0.552, pre-cut 0.724 / 0.608 / 0.676 /
#: 0.556 -> 0.736 / 0.608 / 0.676 / 0.560 (0.01 and 0.0125 less on the rehearsal; 0.02
#: lowered networkmanager's pre-cut figure).
REDUNDANCY_PENALTY: Final = 0.015

#: Best hits placed that way, whatever the limit asked for (a short list is the head of a long
#: one): the ten a prompt's recall returns (agents' hooks ask ten and show three); past them
#: hits follow as they rank, so a long listing costs no more.
SPREAD_POOL: Final = 10


# --- learned ranker ----------------------------------------------------------------------

#: Whether each signal's contribution is multiplied by its learned weight
#: (``recall/ranking/learned_weights.json``, fitted by ``recall.ranking.fit_learned`` on the
#: pre-cut tasks of the shared fix histories); off, the hand-set scales above rank alone.
#: Off: fitted on three histories, the weights lowered the fourth's pre-cut hit@3 (iproute2
#: 0.704 -> 0.684, rdma-core 0.600 -> 0.564, optee 0, networkmanager +0.004; 250 tasks each,
#: refitted with the short recency scale).
LEARNED_RANKER: Final = False


def recency_top() -> float:
    """The largest recency boost: a memory acted on or written just now, or pinned."""
    return RECENCY_MAX + FRESH_MAX


def recency_bonus(days_since_anchor: float, *, pinned: bool = False) -> float:
    """Recency boost ``RECENCY_MAX * 0.5 ** (days / RECENCY_HALF_LIFE_DAYS)`` plus the short
    scale ``FRESH_MAX * 0.5 ** (days / FRESH_HALF_LIFE_DAYS)``.

    The anchor is the last action on the memory, or its creation if never acted on. Future
    anchors (clock skew) count as now, an unknown (NaN) anchor earns nothing, and pinned
    memories never decay.
    """
    if pinned:
        return recency_top()
    if math.isnan(days_since_anchor):
        return 0.0
    days = max(0.0, days_since_anchor)
    return RECENCY_MAX * 0.5 ** (days / RECENCY_HALF_LIFE_DAYS) + FRESH_MAX * 0.5 ** (
        days / FRESH_HALF_LIFE_DAYS
    )


def ignore_penalty(surfaced: int, acted: int, *, pinned: bool = False) -> float:
    """Penalty (<= 0) for a memory shown repeatedly and never acted on.

    0 while ``surfaced`` < 4, after any action, and for pinned memories; otherwise
    ``-0.03`` per surfacing from the fourth, floored at ``-0.12``.
    """
    if pinned or acted > 0 or surfaced < IGNORE_PENALTY_START:
        return 0.0
    steps = surfaced - IGNORE_PENALTY_START + 1
    return -min(IGNORE_PENALTY_MAX, IGNORE_PENALTY_STEP * steps)


def acted_bonus(acted: int) -> float:
    """Bonus for a memory that was acted on: ``0.02 * ln(1 + acted)``, at most 0.05."""
    if acted <= 0:
        return 0.0
    return min(ACTED_BONUS_MAX, ACTED_BONUS_SCALE * math.log1p(acted))


def pinned_bonus(pinned: bool) -> float:
    """Bonus for a pinned memory (``PINNED_BONUS``), else 0."""
    return PINNED_BONUS if pinned else 0.0
