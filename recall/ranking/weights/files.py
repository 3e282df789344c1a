"""What a touched file earns: file affinity and path rarity, the module bonus, co-change
neighbours and blast radius."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

# --- file affinity and path rarity -------------------------------------------------------

#: A memory on the exact file being edited must beat weak semantic and text noise, so a file
#: hit enters with a magnitude larger than any text or semantic magnitude can reach.
FILE_AFFINITY_FLOOR: Final = 0.25

#: Total file-affinity magnitude for the sole memory naming a path: the one note that only
#: knows about this file outranks the crowd sharing a hot path.
RARITY_SOLE_OWNER: Final = 0.40

#: The seed's second anchor: a path shared by 46 memories is worth 0.28 in all.
RARITY_ANCHOR_OWNERS: Final = 46
RARITY_ANCHOR_VALUE: Final = 0.28

#: Decay rate of the rarity premium per unit of ln(owners), solved from the two anchors:
#: premium(n) = (0.40 - 0.25) / (1 + RARITY_DECAY * ln n), so premium(46) = 0.03.
RARITY_DECAY: Final = (
    (RARITY_SOLE_OWNER - FILE_AFFINITY_FLOOR) / (RARITY_ANCHOR_VALUE - FILE_AFFINITY_FLOOR) - 1.0
) / math.log(RARITY_ANCHOR_OWNERS)

#: How much a touch says about intent. An edit is the strongest evidence the file matters
#: now; a save usually ends an edit but also fires on autosave and format-on-save; an open
#: may be browsing. Open is 0.8 so that an opened file's floor (0.8 * 0.25 = 0.20) still
#: ties the strongest text magnitude instead of sinking below it.
TOUCH_WEIGHTS: Final[dict[str, float]] = {"edit": 1.0, "save": 0.9, "open": 0.8}

#: Weight of a touch kind this module does not know: no stronger than an open.
UNKNOWN_TOUCH_WEIGHT: Final = 0.8

#: Share of each further touched file's magnitude added when one memory names several of
#: the touched files: breadth is evidence the memory is about this task...
FILE_EXTRA_SHARE: Final = 0.25

#: ...but at most this much in all, so a memory spread over crowded files (0.28 + 0.08)
#: never outranks the sole owner of one touched file (0.40).
FILE_EXTRA_MAX: Final = 0.08

#: Largest bonus for a memory on a touched file whose other files all belong to the touched
#: file's module (its co-change neighbours): the note is about this part of the code, not a
#: sweep across the repository that happened to pass through the file. Small: a memory on
#: the touched file alone earns none, and at 0.05 it outweighed the text that orders a
#: crowded file's memories (dropping it entirely measured worse).
MODULE_MAX: Final = 0.025

#: Neighbours of each touched file that make up its module: wide enough to hold a subsystem's
#: files, and the list is already capped by co-change strength.
MODULE_NEIGHBOURS: Final = 50


#: Added to the file magnitude of the oldest memory naming a touched file (when several do,
#: and not all were written at once): the note from when the file began describes the code
#: most of it still is, and the change a fix goes back to is far more often the one that
#: wrote the file than any later one (on real fix histories, 10-20x more often than another
#: memory on the same file).
ORIGIN_BONUS: Final = 0.04

#: Added to the origin bonus of a file in proportion to how long it has gone without a new
#: memory, in full from ``ORIGIN_QUIET_DAYS``: a bug fixed now has outlived every change to
#: the file the store holds, and the longer a bug has lived the more often it dates from the
#: code's beginning (an imported history not imported again since is such a store). Chosen on
#: the pre-cut tasks of the four shared histories: with the store frozen at an earlier cut, as
#: the eval's is, hit@3 0.596 / 0.403 / 0.637 / 0.507 -> 0.607 / 0.448 / 0.647 / 0.528, and
#: none lowered scored against every older memory (docs/benchmarks.md).
ORIGIN_QUIET_EXTRA: Final = 0.04

#: Days without a new memory on a file after which ``ORIGIN_QUIET_EXTRA`` counts in full (half
#: a year: 90 days gained less on the frozen stores, 365 and 730 no more).
ORIGIN_QUIET_DAYS: Final = 180.0


#: Kinds of memory to review before editing: with equal file evidence they rank first in the
#: file channel, ahead of context notes (a gotcha just written must not sit behind thirty
#: older notes on its file because their rows came first).
REVIEW_KINDS: Final = frozenset({"gotcha", "decision", "rejected"})

#: Memories with equal file evidence (and kind) rank newest first in the file channel, not
#: in the order they were indexed (oldest first): the change a fix goes back to is often
#: among the latest on its file, and the oldest already has its origin bonus. Pre-cut hit@3
#: +0.02 / 0 / +0.01 / +0.01 on iproute2 / rdma-core / optee / networkmanager (100 tasks each).
FILE_TIES_NEWEST_FIRST: Final = True


#: Memories that may share the earliest moment on a file and still all be its origin. A
#: history's first commits often land in the same second (up to 19 memories on one file in
#: the four shared histories, two commonly: counting none of them cost iproute2's pre-cut
#: hit@3 0.012); a batch of notes imported at once is no origin, else a gotcha written a
#: minute after thirty imported notes sat behind all thirty.
ORIGIN_MAX_TIED: Final = 20


def origin_bonus(quiet_days: float) -> float:
    """The origin bonus on a file whose newest memory is ``quiet_days`` old:
    ``ORIGIN_BONUS`` plus ``ORIGIN_QUIET_EXTRA`` in proportion, in full from
    ``ORIGIN_QUIET_DAYS`` (a negative or unknown age counts as none)."""
    if not quiet_days > 0.0:
        return ORIGIN_BONUS
    if quiet_days >= ORIGIN_QUIET_DAYS:  # also when no days are asked for (a variant's 0)
        return ORIGIN_BONUS + ORIGIN_QUIET_EXTRA
    return ORIGIN_BONUS + ORIGIN_QUIET_EXTRA * quiet_days / ORIGIN_QUIET_DAYS


def module_bonus(share: float) -> float:
    """Bonus by the share (0..1) of a memory's other files that lie in the touched module."""
    return MODULE_MAX * min(1.0, max(0.0, share))


# --- co-change ------------------------------------------------------------------------------

#: Neighbours taken per touched file: beyond the two strongest, co-change is coincidence.
NEIGHBOURS_PER_FILE: Final = 2

#: Neighbours taken for the whole query: a wide edit must not flood recall with side files.
NEIGHBOURS_TOTAL: Final = 6

#: Co-change memories enter the file channel at this RRF rank, behind every direct hit.
COCHANGE_RRF_RANK: Final = 5

#: Co-change magnitude at full confidence: a third of a direct file hit, so a neighbour's
#: memory never outranks one on the file actually touched.
COCHANGE_MAX: Final = FILE_AFFINITY_FLOOR / 3

#: Neighbours that changed together in under a fifth of the touched file's commits are
#: coincidence (a sweeping refactor, a version bump), not coupling.
COCHANGE_MIN_CONFIDENCE: Final = 0.2

#: Neighbours need at least this many shared commits: one shared commit is an anecdote.
COCHANGE_MIN_SUPPORT: Final = 2

#: Pseudo-commits used to shrink a co-change ratio when its support is known:
#: 1/1 -> 0.33, 7/9 -> 0.60, 40/40 -> 0.95 of the raw confidence's worth.
COCHANGE_PRIOR: Final = 2


# --- blast radius -----------------------------------------------------------------------

#: Largest boost for a widely imported file: a tie-breaker, never a reason to surface.
BLAST_MAX: Final = 0.06

#: Import fan-in at which the blast boost saturates (the seed's example is 60 importers).
BLAST_SATURATION: Final = 64

#: Fan-in from which a receipt mentions it: below this, being imported explains nothing.
BLAST_RECEIPT_MIN: Final = 5


def rarity_bonus(owners: int) -> float:
    """Total file-affinity magnitude for a path named by ``owners`` active memories.

    ``0.25 + 0.15 / (1 + RARITY_DECAY * ln(owners))``: 0.40 for a sole owner, 0.28 at 46,
    smooth and non-increasing in between and beyond, approaching but never below the 0.25
    floor. Counts below 1 are treated as 1 (the memory asking owns the path).
    """
    n = max(1, owners)
    premium = (RARITY_SOLE_OWNER - FILE_AFFINITY_FLOOR) / (1.0 + RARITY_DECAY * math.log(n))
    return FILE_AFFINITY_FLOOR + premium


def touch_weight(kind: str) -> float:
    """Weight of how a file was touched (``edit`` 1.0, ``save`` 0.9, ``open`` 0.8)."""
    return TOUCH_WEIGHTS.get(kind, UNKNOWN_TOUCH_WEIGHT)


def file_magnitude(owners: int, weight: float) -> float:
    """File-affinity magnitude: ``rarity_bonus(owners)`` scaled by a touch weight in [0, 1]."""
    return rarity_bonus(owners) * min(1.0, max(0.0, weight))


def file_affinity(owners: int, kind: str = "edit") -> float:
    """File-affinity magnitude of a memory on a file touched in the named way."""
    return file_magnitude(owners, touch_weight(kind))


def combine_file_hits(magnitudes: Sequence[float]) -> float:
    """One memory's file magnitude when it names several touched files.

    The strongest hit counts in full; the others add ``FILE_EXTRA_SHARE`` of their
    magnitude, at most ``FILE_EXTRA_MAX`` in all. No hits give 0.
    """
    if not magnitudes:
        return 0.0
    ordered = sorted(magnitudes, reverse=True)
    extra = FILE_EXTRA_SHARE * sum(ordered[1:])
    return ordered[0] + min(FILE_EXTRA_MAX, max(0.0, extra))


def cochange_magnitude(confidence: float, support: int | None = None) -> float:
    """Co-change magnitude of a neighbour that changed with a touched file.

    ``confidence`` is the share of the touched file's commits that also changed the
    neighbour. When ``support`` (the shared commits) is given, the ratio is shrunk by
    ``support / (support + COCHANGE_PRIOR)`` so one coincidence counts little. The result is
    at most ``COCHANGE_MAX``, a third of a direct file hit.
    """
    if not math.isfinite(confidence) or confidence <= 0.0:
        return 0.0
    share = min(1.0, confidence)
    if support is not None:
        if support <= 0:
            return 0.0
        share *= support / (support + COCHANGE_PRIOR)
    return COCHANGE_MAX * share


def blast_bonus(fan_in: int) -> float:
    """Blast-radius boost for a file imported by ``fan_in`` files: log-scaled, at most 0.06."""
    if fan_in <= 0:
        return 0.0
    return BLAST_MAX * min(1.0, math.log1p(fan_in) / math.log1p(BLAST_SATURATION))


# -- File channel: the newest memories on a file ---------------------------------------------

#: Largest bonus for the newest memory on a touched file (scaled like the touch), halving with
#: each ``FILE_NEWEST_HALF_RANK`` memories on that file written after it (and by now): the
#: change a fix goes back to is the latest on its file for a fifth to a third of the four
#: shared fix histories' pre-cut tasks, whatever the history's pace, which a calendar
#: half-life (recency) cannot see. Pre-cut hit@3 (250 tasks each) 0.704 / 0.600 / 0.648 /
#: 0.520 -> 0.704 / 0.600 / 0.660 / 0.524 on iproute2 / rdma-core / optee / networkmanager;
#: 0.015 and 0.025 did as well on the mean, a half rank of 2 or 4 cost iproute2 or rdma-core.
FILE_NEWEST_BONUS: Final = 0.02

#: Memories written after it on the same file for the newest bonus to halve (see above): the
#: latest note gets it in full, the one before half, a file's older notes hardly any.
FILE_NEWEST_HALF_RANK: Final = 1.0


#: Share of the newest bonus a file loses as it goes quiet, in full from ``ORIGIN_QUIET_DAYS``
#: without a new memory: on a file nobody has written a note on for half a year, the newest
#: note is no more "the latest change" a bug goes back to than the older ones. Chosen on the
#: pre-cut tasks with the quiet origin in: rehearsal hit@3 0.607 / 0.448 / 0.647 / 0.528 ->
#: 0.614 / 0.462 / 0.653 / 0.540, pre-cut (250) unchanged on all four (docs/benchmarks.md).
NEWEST_QUIET_FADE: Final = 1.0


def newest_quiet_scale(quiet_days: float) -> float:
    """What the newest bonus on a file whose newest memory is ``quiet_days`` old is scaled by:
    1 at none (a negative or unknown age counts as none), falling in proportion to
    ``1 - NEWEST_QUIET_FADE`` at ``ORIGIN_QUIET_DAYS`` and beyond, within [0, 1]."""
    if not quiet_days > 0.0:
        return 1.0
    # in full from ORIGIN_QUIET_DAYS, also when no days are asked for (a variant's 0)
    share = 1.0 if quiet_days >= ORIGIN_QUIET_DAYS else quiet_days / ORIGIN_QUIET_DAYS
    return min(1.0, max(0.0, 1.0 - NEWEST_QUIET_FADE * share))


def file_newest_bonus(newer: int) -> float:
    """Bonus of a memory on a touched file with ``newer`` memories on that file written after
    it: ``FILE_NEWEST_BONUS * 0.5 ** (newer / FILE_NEWEST_HALF_RANK)`` (negative counts as 0)."""
    return FILE_NEWEST_BONUS * 0.5 ** (max(0, newer) / FILE_NEWEST_HALF_RANK)


#: A newest bonus below this orders nothing, so the later memories of a busy file are counted
#: only until the bonus falls under it (:func:`file_newest_depth`, 15 later memories): a speed
#: setting (counting them all ranked every task of iproute2 the same, at 15x the CPU).
FILE_NEWEST_NEGLIGIBLE: Final = 1e-6


def file_newest_depth() -> int:
    """How many later memories on a file need counting before ``file_newest_bonus`` is below
    ``FILE_NEWEST_NEGLIGIBLE`` (0 when the bonus is already that small)."""
    if FILE_NEWEST_BONUS <= FILE_NEWEST_NEGLIGIBLE:
        return 0
    ratio = FILE_NEWEST_BONUS / FILE_NEWEST_NEGLIGIBLE
    return math.ceil(FILE_NEWEST_HALF_RANK * math.log2(ratio))
