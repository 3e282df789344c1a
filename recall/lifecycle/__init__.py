"""Lifecycle judgements: when an ignored memory archives itself, what makes a memory a stale
cleanup candidate, how bad a candidate is, and when the cleanup hint is due.

Pure functions over counts and dates; the index and the files are read elsewhere
(:mod:`recall.lifecycle.disuse`, :mod:`recall.lifecycle.cleanup`). The numbers that a
repository may override are defaults of :class:`recall.settings.EngineSettings`; each
carries the reason it has its value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Final

from recall.ranking.weights import IGNORE_PENALTY_START

if TYPE_CHECKING:
    from recall.settings import EngineSettings

# -- soft-archive ------------------------------------------------------------------------------

ARCHIVE_MIN_SURFACINGS: Final = 6
"""Surfacings with no action before a memory archives itself (the seed's number): two more than
the ignore penalty needs to start, so a memory first steps back in ranking, then retires."""

ARCHIVE_WINDOW_DAYS: Final = 45
"""Days from the first surfacing to the session start that archives: six showings ignored in one
busy afternoon say less than showings ignored over weeks of different tasks."""

# -- cleanup hint ------------------------------------------------------------------------------

CLEANUP_MIN_SESSIONS: Final = 20
"""Sessions since the last cleanup pass before the hint comes back: about a month of daily work,
so curation is a rare chore, never a nag."""

CLEANUP_MIN_ACTIVE: Final = 30
"""Active memories below which the store is small enough to read whole; no cleanup hint."""

CLEANUP_MIN_STALE: Final = 10
"""Stale candidates needed for the hint: fewer is not worth interrupting a person for."""

# -- stale candidates --------------------------------------------------------------------------

STALE_GRACE_DAYS: Final = 30
"""A memory written or acted on (kept, confirmed, shown in full) within this many days is never
a cleanup candidate: someone has just vouched for it."""

STALE_IDLE_DAYS: Final = 180
"""Neither acted on nor shown for this long: the recency half-life, after which a memory has
gone quiet enough to ask whether it still earns its place."""

STALE_AGE_FULL_DAYS: Final = 365
"""Days without an action at which the age part of the offender score is full."""

DEAD_WEIGHT: Final = 1.0
"""Score added when every file the memory names is gone: recall can no longer reach it through
its files, the surest sign it needs a person."""

DRIFT_WEIGHT: Final = 0.5
"""Score added for a spot-check (its files changed a lot since): likely out of date, but it may
well still hold, so half a dead reference."""

CLEANUP_LIST_LIMIT: Final = 20
"""Candidates ``tether cleanup`` shows by default: one sitting's worth, worst first."""


@dataclass(frozen=True)
class UsageFacts:
    """What the lifecycle needs to know about one memory."""

    surfaced: int = 0
    acted: int = 0
    first_surfaced: datetime | None = None
    last_surfaced: datetime | None = None
    anchor: datetime | None = None
    """The last action on the memory, else its creation (the recency anchor)."""
    pinned: bool = False
    guarded: bool = False
    """A guard is asked about, not read: its showings are questions to a person, never acted
    on, and only a person lifts it (``tether unguard``), so disuse never archives it."""


def days_between(earlier: datetime | None, later: datetime) -> float:
    """Days from ``earlier`` to ``later``; NaN when ``earlier`` is unknown, 0 for the future."""
    if earlier is None:
        return math.nan
    return max(0.0, (later - earlier).total_seconds() / 86400.0)


def archive_due(facts: UsageFacts, moment: datetime, settings: EngineSettings) -> bool:
    """Whether disuse archives the memory at a session start at ``moment``.

    All of: not pinned; not guarded; never acted on; shown at least ``archive_min_surfacings``
    times; first shown at least ``archive_window_days`` days before ``moment``.
    """
    if not settings.archive_by_disuse or facts.pinned or facts.guarded or facts.acted > 0:
        return False
    if facts.surfaced < settings.archive_min_surfacings:
        return False
    return days_between(facts.first_surfaced, moment) >= settings.archive_window_days


def may_be_stale(facts: UsageFacts, moment: datetime) -> bool:
    """False for pinned memories and those vouched for within :data:`STALE_GRACE_DAYS` (or
    with no known anchor): they are never cleanup candidates, whatever else holds."""
    return not facts.pinned and days_between(facts.anchor, moment) >= STALE_GRACE_DAYS


def stale_reasons(
    facts: UsageFacts, moment: datetime, *, dead: bool = False, drifting: bool = False
) -> list[str]:
    """Why a memory is a stale cleanup candidate (empty when it is not one).

    Pinned memories and those vouched for within :data:`STALE_GRACE_DAYS` never are. Otherwise
    each of these is a reason: every file gone (``dead reference``), a spot-check due
    (``spot-check``), shown :data:`~recall.ranking.weights.IGNORE_PENALTY_START`+ times and
    never acted on (``ignored``), neither acted on nor shown for :data:`STALE_IDLE_DAYS` (``idle``).
    """
    if not may_be_stale(facts, moment):
        return []
    age = days_between(facts.anchor, moment)
    reasons: list[str] = []
    if dead:
        reasons.append("dead reference")
    if drifting:
        reasons.append("spot-check")
    if facts.acted == 0 and facts.surfaced >= IGNORE_PENALTY_START:
        reasons.append("ignored")
    quiet = days_between(facts.last_surfaced, moment)
    if age >= STALE_IDLE_DAYS and (math.isnan(quiet) or quiet >= STALE_IDLE_DAYS):
        reasons.append("idle")
    return reasons


def offender_score(
    facts: UsageFacts, moment: datetime, *, dead: bool = False, drifting: bool = False
) -> float:
    """How bad a candidate is, worst highest: age, then disuse, then broken references.

    ``age`` (0..1) is days since the last action over :data:`STALE_AGE_FULL_DAYS`; ``disuse``
    (0..1) is showings not followed by an action over ``ARCHIVE_MIN_SURFACINGS``; a dead reference
    adds :data:`DEAD_WEIGHT` and a spot-check :data:`DRIFT_WEIGHT`.
    """
    days = days_between(facts.anchor, moment)
    age = 0.0 if math.isnan(days) else min(1.0, days / STALE_AGE_FULL_DAYS)
    unfollowed = max(0, facts.surfaced - facts.acted)
    disuse = min(1.0, unfollowed / ARCHIVE_MIN_SURFACINGS)
    return age + disuse + (DEAD_WEIGHT if dead else 0.0) + (DRIFT_WEIGHT if drifting else 0.0)


def cleanup_due(sessions: int, active: int, stale: int, settings: EngineSettings) -> bool:
    """Whether the store has aged enough for the cleanup hint: all three thresholds met."""
    return (
        sessions >= settings.cleanup_min_sessions
        and active >= settings.cleanup_min_active
        and stale >= settings.cleanup_min_stale
    )
