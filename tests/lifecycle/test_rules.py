"""The lifecycle's judgements as pure functions, and the constants they rest on, pinned."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from recall import lifecycle as L
from recall.ranking.weights import IGNORE_PENALTY_START
from recall.settings import EngineSettings

from .conftest import DAY0

DEFAULTS = EngineSettings()


def day(n: float) -> datetime:
    return DAY0 + timedelta(days=n)


def test_constants_pinned_to_the_spec_and_their_reasons() -> None:
    assert (L.ARCHIVE_MIN_SURFACINGS, L.ARCHIVE_WINDOW_DAYS) == (6, 45)
    assert L.ARCHIVE_MIN_SURFACINGS > IGNORE_PENALTY_START  # penalised first, archived later
    assert (L.CLEANUP_MIN_SESSIONS, L.CLEANUP_MIN_ACTIVE, L.CLEANUP_MIN_STALE) == (20, 30, 10)
    assert (L.STALE_GRACE_DAYS, L.STALE_IDLE_DAYS, L.STALE_AGE_FULL_DAYS) == (30, 180, 365)
    assert (L.DEAD_WEIGHT, L.DRIFT_WEIGHT) == (1.0, 0.5)
    assert L.CLEANUP_LIST_LIMIT == 20


def test_archive_due_at_its_anchor_points() -> None:
    ignored = L.UsageFacts(surfaced=6, first_surfaced=day(0))
    assert not L.archive_due(ignored, day(44.999), DEFAULTS)
    assert L.archive_due(ignored, day(45), DEFAULTS)
    assert not L.archive_due(L.UsageFacts(surfaced=5, first_surfaced=day(0)), day(400), DEFAULTS)
    assert not L.archive_due(
        L.UsageFacts(surfaced=60, acted=1, first_surfaced=day(0)), day(99), DEFAULTS
    )
    pinned = L.UsageFacts(surfaced=60, first_surfaced=day(0), pinned=True)
    assert not L.archive_due(pinned, day(99), DEFAULTS)
    assert not L.archive_due(L.UsageFacts(surfaced=6), day(99), DEFAULTS)  # no first showing known
    off = EngineSettings(archive_by_disuse=False)
    assert not L.archive_due(ignored, day(99), off)


def test_stale_reasons_and_the_grace_period() -> None:
    now = day(400)
    ignored = L.UsageFacts(surfaced=4, anchor=day(369), last_surfaced=day(390))
    assert L.stale_reasons(ignored, now) == ["ignored"]
    assert L.stale_reasons(L.UsageFacts(surfaced=4, anchor=day(371)), now) == []  # 29 days: grace
    assert L.stale_reasons(L.UsageFacts(surfaced=3, anchor=day(300)), now) == []
    assert L.stale_reasons(L.UsageFacts(surfaced=9, acted=1, anchor=day(300)), now) == []
    idle = L.UsageFacts(anchor=day(220), last_surfaced=day(220))
    assert L.stale_reasons(idle, now) == ["idle"]
    assert L.stale_reasons(L.UsageFacts(anchor=day(221), last_surfaced=day(100)), now) == []
    assert L.stale_reasons(L.UsageFacts(anchor=day(0), last_surfaced=day(221)), now) == []
    old = L.UsageFacts(anchor=day(0))
    assert L.stale_reasons(old, now, dead=True, drifting=True) == [
        "dead reference",
        "spot-check",
        "idle",
    ]
    assert L.stale_reasons(L.UsageFacts(anchor=day(0), pinned=True), now, dead=True) == []
    assert L.stale_reasons(L.UsageFacts(), now, dead=True) == []  # no anchor: no claim


def test_offender_score_by_age_disuse_and_references() -> None:
    now = day(400)
    assert L.offender_score(L.UsageFacts(anchor=day(400)), now) == 0.0
    assert math.isclose(L.offender_score(L.UsageFacts(anchor=day(400 - 73)), now), 0.2)
    assert L.offender_score(L.UsageFacts(anchor=day(0)), now) == 1.0  # saturates at a year
    assert L.offender_score(L.UsageFacts(anchor=day(400), surfaced=3), now) == 0.5
    assert L.offender_score(L.UsageFacts(anchor=day(400), surfaced=9, acted=3), now) == 1.0
    assert L.offender_score(L.UsageFacts(anchor=day(400), surfaced=2, acted=5), now) == 0.0
    worst = L.offender_score(L.UsageFacts(anchor=day(0), surfaced=6), now, dead=True, drifting=True)
    assert worst == 3.5
    assert L.offender_score(L.UsageFacts(), now) == 0.0


def test_cleanup_due_needs_all_three() -> None:
    assert L.cleanup_due(20, 30, 10, DEFAULTS)
    assert not L.cleanup_due(19, 30, 10, DEFAULTS)
    assert not L.cleanup_due(20, 29, 10, DEFAULTS)
    assert not L.cleanup_due(20, 30, 9, DEFAULTS)
    assert L.cleanup_due(
        1, 1, 1, EngineSettings(cleanup_min_sessions=1, cleanup_min_active=1, cleanup_min_stale=1)
    )


def test_days_between() -> None:
    assert math.isnan(L.days_between(None, day(1)))
    assert L.days_between(day(2), day(1)) == 0.0
    assert L.days_between(day(1), day(2.5)) == 1.5
