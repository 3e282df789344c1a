"""A file that has gone quiet: the longer since its newest memory, the more its origin weighs.

A bug fixed long after a file's last recorded change has outlived every later change the
store holds, and a bug that old most often dates from the code's beginning. The oldest
memory on the file (its origin) gets ``W.origin_bonus(days since the file's newest memory)``:
``ORIGIN_BONUS`` on a busy file, up to ``ORIGIN_BONUS + ORIGIN_QUIET_EXTRA`` on one quiet for
``ORIGIN_QUIET_DAYS``. Over the same days the newest bonus fades
(``W.newest_quiet_scale``): on a file nobody has written on for half a year, the newest note is
no more the latest change a bug goes back to than the older ones.
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


def test_the_newest_bonus_fades_with_the_files_quiet_days_and_is_gone_at_half_a_year() -> None:
    assert W.newest_quiet_scale(0.0) == 1.0
    assert W.newest_quiet_scale(-3.0) == 1.0  # a clock behind the newest memory
    assert W.newest_quiet_scale(float("nan")) == 1.0
    half = W.newest_quiet_scale(W.ORIGIN_QUIET_DAYS / 2)
    assert half == pytest.approx(1.0 - W.NEWEST_QUIET_FADE / 2)
    gone = 1.0 - W.NEWEST_QUIET_FADE
    assert W.newest_quiet_scale(W.ORIGIN_QUIET_DAYS) == pytest.approx(gone)
    assert W.newest_quiet_scale(10 * W.ORIGIN_QUIET_DAYS) == pytest.approx(gone)


def test_the_fade_stays_within_its_bounds_whatever_a_variant_sets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from recall.ranking.weights import files

    monkeypatch.setattr(files, "NEWEST_QUIET_FADE", 2.0)
    assert W.newest_quiet_scale(W.ORIGIN_QUIET_DAYS) == 0.0
    monkeypatch.setattr(files, "NEWEST_QUIET_FADE", -1.0)
    assert W.newest_quiet_scale(W.ORIGIN_QUIET_DAYS) == 1.0
    monkeypatch.setattr(files, "NEWEST_QUIET_FADE", 1.0)
    monkeypatch.setattr(files, "ORIGIN_QUIET_DAYS", 0.0)  # no days asked for: quiet at once
    assert W.newest_quiet_scale(0.5) == 0.0
    assert W.newest_quiet_scale(0.0) == 1.0


def test_on_a_quiet_file_the_newest_note_loses_its_bonus_to_the_tie_order(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.history([[PATH]])
    origin = world.remember(
        "poller: first", PATH, category="context", created="2020-01-10T00:00:00+00:00"
    )
    review = world.remember("poller: a gotcha", PATH, created="2021-01-09T00:00:00+00:00")
    newest = world.remember(
        "poller: later", PATH, category="context", created="2021-01-10T00:00:00+00:00"
    )

    monkeypatch.setenv("TETHER_NOW", "2021-01-15T00:00:00+00:00")  # five days after the newest
    busy = world.recall(PATH)
    monkeypatch.setenv("TETHER_NOW", "2023-01-10T00:00:00+00:00")  # two years after it
    quiet = world.recall(PATH)

    plain = W.file_affinity(3)
    assert hit_of(busy, newest).signals["file"] == pytest.approx(
        plain + W.file_newest_bonus(0) * W.newest_quiet_scale(5.0)
    )
    # half a year quiet, the newest note and the one before are plain file hits...
    assert hit_of(quiet, newest).signals["file"] == pytest.approx(plain)
    assert hit_of(quiet, review).signals["file"] == pytest.approx(plain)
    # ...so the gotcha (reviewed before editing) leads the newer context note, as on a tie
    assert [m for m in ids(busy) if m != origin] == [newest, review], describe(busy)
    assert ids(quiet) == [origin, review, newest], describe(quiet)


def test_on_a_busy_file_the_newest_note_leads_and_on_a_quiet_one_the_origin(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _three_notes(world)
    plain = W.file_affinity(len(made))

    monkeypatch.setenv("TETHER_NOW", "2021-01-15T00:00:00+00:00")  # five days after the newest
    busy = world.recall(PATH)
    monkeypatch.setenv("TETHER_NOW", "2023-01-10T00:00:00+00:00")  # two years after it
    quiet = world.recall(PATH)

    fade = W.newest_quiet_scale(5.0)
    assert hit_of(busy, made[0]).signals["file"] == pytest.approx(
        plain + W.origin_bonus(5.0) + W.file_newest_bonus(2) * fade
    )
    # two years quiet: the origin bonus in full, the newest bonus gone
    assert hit_of(quiet, made[0]).signals["file"] == pytest.approx(
        plain + W.ORIGIN_BONUS + W.ORIGIN_QUIET_EXTRA
    )
    assert hit_of(quiet, made[0]).signals["file"] > hit_of(busy, made[0]).signals["file"]
    # the later notes get no origin bonus, busy or quiet, and the newest no newest bonus quiet
    assert hit_of(busy, made[2]).signals["file"] == pytest.approx(
        plain + W.file_newest_bonus(0) * fade
    )
    assert hit_of(quiet, made[2]).signals["file"] == pytest.approx(plain)
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
    faded = W.file_newest_bonus(2) * W.newest_quiet_scale(5.0)  # its newest bonus, gone
    assert gained == pytest.approx(W.origin_bonus(730.0) - W.origin_bonus(5.0) - faded)
    assert gained > 0.0
    lost = hit_of(busy, made[2]).signals["file"] - hit_of(quiet, made[2]).signals["file"]
    assert lost == pytest.approx(W.file_newest_bonus(0) * W.newest_quiet_scale(5.0))
