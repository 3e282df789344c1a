"""A file that has gone quiet: the longer since its newest memory, the more its origin weighs.

A bug fixed long after a file's last recorded change has outlived every later change the
store holds, and a bug that old most often dates from the code's beginning. The oldest
memory on the file (its origin) gets ``W.origin_bonus(days since the file's newest memory)``:
``ORIGIN_BONUS`` on a busy file, up to ``ORIGIN_BONUS + ORIGIN_QUIET_EXTRA`` on one quiet for
``ORIGIN_QUIET_DAYS``.
"""

from __future__ import annotations

import pytest

from recall.ranking import weights as W
from recall.ranking.query import RecallQuery, Touch

from .world import World, describe, hit_of, ids

PATH = "src/net/poller.c"
DATES = ("2020-01-10", "2020-06-10", "2021-01-10")


def _three_notes(world: World) -> list[str]:
    world.history([[PATH]])
    return [
        world.remember(f"poller: note {n}", PATH, created=f"{day}T00:00:00+00:00")
        for n, day in enumerate(DATES)
    ]


def test_the_origin_bonus_grows_with_the_files_quiet_days_and_stops_growing() -> None:
    assert W.origin_bonus(0.0) == W.ORIGIN_BONUS
    assert W.origin_bonus(-3.0) == W.ORIGIN_BONUS  # a clock behind the newest memory
    assert W.origin_bonus(float("nan")) == W.ORIGIN_BONUS
    half = W.origin_bonus(W.ORIGIN_QUIET_DAYS / 2)
    assert half == pytest.approx(W.ORIGIN_BONUS + W.ORIGIN_QUIET_EXTRA / 2)
    full = W.ORIGIN_BONUS + W.ORIGIN_QUIET_EXTRA
    assert W.origin_bonus(W.ORIGIN_QUIET_DAYS) == pytest.approx(full)
    assert W.origin_bonus(10 * W.ORIGIN_QUIET_DAYS) == pytest.approx(full)


def test_on_a_busy_file_the_newest_note_leads_and_on_a_quiet_one_the_origin(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _three_notes(world)
    plain = W.file_affinity(len(made))

    monkeypatch.setenv("TETHER_NOW", "2021-01-15T00:00:00+00:00")  # five days after the newest
    busy = world.recall(PATH)
    monkeypatch.setenv("TETHER_NOW", "2023-01-10T00:00:00+00:00")  # two years after it
    quiet = world.recall(PATH)

    assert hit_of(busy, made[0]).signals["file"] == pytest.approx(
        plain + W.origin_bonus(5.0) + W.file_newest_bonus(2)
    )
    assert hit_of(quiet, made[0]).signals["file"] == pytest.approx(
        plain + W.ORIGIN_BONUS + W.ORIGIN_QUIET_EXTRA + W.file_newest_bonus(2)
    )
    assert hit_of(quiet, made[0]).signals["file"] > hit_of(busy, made[0]).signals["file"]
    # the later notes get no origin bonus, busy or quiet
    assert hit_of(quiet, made[2]).signals["file"] == pytest.approx(plain + W.file_newest_bonus(0))
    assert ids(busy)[0] == made[2], describe(busy)
    assert ids(quiet)[0] == made[0], describe(quiet)


def test_a_long_lived_engine_sees_the_file_go_quiet(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _three_notes(world)
    recaller = world.recaller()  # keeps each touched set's file channel for its index state
    query = RecallQuery((Touch(PATH, "edit"),), None, limit=10)

    monkeypatch.setenv("TETHER_NOW", "2021-01-15T00:00:00+00:00")
    busy = recaller.recall(query)
    monkeypatch.setenv("TETHER_NOW", "2023-01-10T00:00:00+00:00")
    quiet = recaller.recall(query)

    gained = hit_of(quiet, made[0]).signals["file"] - hit_of(busy, made[0]).signals["file"]
    assert gained == pytest.approx(W.origin_bonus(730.0) - W.origin_bonus(5.0))
    assert gained > 0.0
