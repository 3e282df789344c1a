"""The newest memories on a touched file, through the real engine.

Among the memories naming a touched file, the latest gets ``W.FILE_NEWEST_BONUS`` on its file
magnitude, halving with each memory on that file written after it: the change a fix goes back
to is most often the latest or nearly latest on its file. Only memories written by the
engine's clock count as later ones. The bonus fades as the file goes quiet
(``W.newest_quiet_scale``), so these files' memories are recent by the clock.
"""

from __future__ import annotations

import pytest

from recall.ranking import weights as W
from recall.ranking.query import RecallQuery, Touch

from .world import NOW, World, describe, hit_of, ids, newest_bonus, quiet_origin

PATH = "src/net/poller.c"
OTHER = "src/net/timer.c"


def test_each_later_memory_on_the_file_halves_the_bonus_by_its_half_rank(world: World) -> None:
    world.history([[PATH, OTHER]])
    dates = ["2026-01-10", "2026-03-10", "2026-04-10", "2026-05-10", "2026-05-25"]
    made = [
        world.remember(f"poller: note {n}", PATH, created=f"{day}T00:00:00+00:00")
        for n, day in enumerate(dates)
    ]

    result = world.recall(PATH)

    plain = W.file_affinity(len(made))
    for newer, memory_id in enumerate(reversed(made)):
        latest = f"{dates[-1]}T00:00:00+00:00"
        origin = quiet_origin(latest) if memory_id == made[0] else 0.0
        expected = plain + origin + newest_bonus(newer, latest)
        assert hit_of(result, memory_id).signals["file"] == pytest.approx(expected)
    # apart from the oldest (the file's origin), they come newest first
    later = [memory_id for memory_id in ids(result) if memory_id in made[1:]]
    assert later == list(reversed(made[1:])), describe(result)


def test_the_bonus_goes_to_the_newest_on_each_file_and_a_memory_keeps_its_best(
    world: World,
) -> None:
    world.history([[PATH, OTHER]])
    # newest on OTHER, but two later notes on PATH (and an older one: no origin there)
    world.remember("poller: first", PATH, created="2026-03-01T00:00:00+00:00")
    both = world.remember("poller and timer", PATH, OTHER, created="2026-05-01T00:00:00+00:00")
    world.remember("poller: later", PATH, created="2026-05-10T00:00:00+00:00")
    world.remember("poller: latest", PATH, created="2026-05-20T00:00:00+00:00")
    world.remember("timer: first", OTHER, created="2026-04-01T00:00:00+00:00")

    on_other = hit_of(world.recall(OTHER), both).signals["file"]
    on_both = hit_of(world.recall(PATH, OTHER), both).signals["file"]

    best = newest_bonus(0, "2026-05-01T00:00:00+00:00")  # OTHER's newest, a month quiet
    assert best > newest_bonus(2, "2026-05-20T00:00:00+00:00")  # its bonus on PATH
    assert on_other == pytest.approx(W.file_affinity(2) + best)
    magnitudes = [W.file_affinity(4), W.file_affinity(2)]
    assert on_both == pytest.approx(W.combine_file_hits(magnitudes) + best)


def test_a_memory_dated_after_the_clock_is_no_later_note_on_the_file(world: World) -> None:
    world.history([[PATH]])
    older = world.remember("poller: older", PATH, created="2026-01-10T00:00:00+00:00")
    latest = "2026-05-25T00:00:00+00:00"
    current = world.remember("poller: current", PATH, created=latest)
    ahead = world.remember("poller: from the future", PATH, created="2026-09-01T00:00:00+00:00")
    assert NOW < "2026-09"

    result = world.recall(PATH)

    plain = W.file_affinity(3)
    assert hit_of(result, current).signals["file"] == pytest.approx(plain + newest_bonus(0, latest))
    assert hit_of(result, older).signals["file"] == pytest.approx(
        plain + quiet_origin(latest) + newest_bonus(1, latest)
    )
    assert hit_of(result, ahead).signals["file"] == pytest.approx(plain + newest_bonus(0, latest))


def test_an_opened_file_gives_the_bonus_scaled_like_its_affinity(world: World) -> None:
    world.history([[PATH]])
    world.remember("poller: first", PATH, created="2026-01-10T00:00:00+00:00")
    written = "2026-05-25T00:00:00+00:00"
    latest = world.remember("poller: latest", PATH, created=written)

    opened = hit_of(world.recall(opens=[PATH]), latest).signals["file"]

    weight = W.touch_weight("open")
    assert opened == pytest.approx(W.file_affinity(2, "open") + newest_bonus(0, written) * weight)


def test_a_busy_files_older_memories_get_no_bonus_past_the_counted_depth(world: World) -> None:
    world.history([[PATH]])
    depth = W.file_newest_depth()
    made = [  # a note a day, the latest a few days before the clock
        world.remember(f"poller: note {n}", PATH, created=f"2026-05-{n + 1:02d}T00:00:00+00:00")
        for n in range(depth + 3)
    ]
    assert depth + 3 < 31

    result = world.recall(PATH, limit=len(made))

    plain = W.file_affinity(len(made))
    newest = f"2026-05-{depth + 3:02d}T00:00:00+00:00"
    for newer, memory_id in enumerate(reversed(made)):
        origin = quiet_origin(newest) if memory_id == made[0] else 0.0
        bonus = newest_bonus(newer, newest) if newer <= depth else 0.0
        assert hit_of(result, memory_id).signals["file"] == pytest.approx(
            plain + origin + bonus, rel=0, abs=1e-12
        )


def test_a_long_lived_engine_counts_a_later_note_once_the_clock_reaches_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The engine keeps a file channel per index state; one with a memory dated after the
    # clock must not be reused once the clock has passed that memory.
    world.history([[PATH]])
    world.remember("poller: older", PATH, created="2026-01-10T00:00:00+00:00")
    written, later = "2026-05-25T00:00:00+00:00", "2026-09-01T00:00:00+00:00"
    current = world.remember("poller: current", PATH, created=written)
    ahead = world.remember("poller: from the future", PATH, created=later)
    recaller = world.recaller()
    query = RecallQuery((Touch(PATH, "edit"),), None, limit=10)

    before = recaller.recall(query)
    then = "2026-09-03T00:00:00+00:00"
    monkeypatch.setenv("TETHER_NOW", then)
    after = recaller.recall(query)

    plain = W.file_affinity(3)
    at_first = plain + newest_bonus(0, written)
    assert hit_of(before, current).signals["file"] == pytest.approx(at_first)
    assert hit_of(after, current).signals["file"] == pytest.approx(
        plain + newest_bonus(1, later, then)
    )
    assert hit_of(after, ahead).signals["file"] == pytest.approx(
        plain + newest_bonus(0, later, then)
    )
