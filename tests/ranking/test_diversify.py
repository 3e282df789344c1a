"""The returned hits spread over their files: a note naming the same files as one placed above
it gives up a little score, so two notes on one change set do not both come before a note on
other files that scored nearly as well."""

from __future__ import annotations

import dataclasses

import pytest

from recall.model import Memory
from recall.policy import inject
from recall.ranking import diversify
from recall.ranking import weights as W
from recall.ranking.diversify import likeness, respread, spread
from recall.ranking.hits import Hit

from .world import World, hit_of, ids


def _hit(name: str, score: float, *files: str) -> Hit:
    memory = Memory(id=name, category="context", summary=f"note {name}", files=tuple(files))
    return Hit(memory, "project", score, {"file": score}, "via file", True)


def test_the_penalty_is_pinned() -> None:
    assert W.REDUNDANCY_PENALTY == 0.015
    assert W.SPREAD_POOL == 10


def test_likeness_is_the_jaccard_index_of_the_files() -> None:
    assert likeness(frozenset({"a", "b"}), frozenset({"a", "b"})) == 1.0
    assert likeness(frozenset({"a", "b"}), frozenset({"a", "c"})) == pytest.approx(1 / 3)
    assert likeness(frozenset({"a"}), frozenset({"b"})) == 0.0
    assert likeness(frozenset(), frozenset({"a"})) == 0.0


def test_a_note_on_the_same_files_falls_behind_a_note_on_others() -> None:
    first, twin, other = _hit("f", 0.400, "a.c", "b.c"), _hit("t", 0.395, "a.c", "b.c"), None
    other = _hit("o", 0.390, "a.c", "d.c")
    placed = spread([first, twin, other])
    assert [h.memory.id for h in placed] == ["f", "o", "t"]
    assert placed[0] is first  # the best keeps its score and signals
    assert placed[1].score == pytest.approx(0.390 - W.REDUNDANCY_PENALTY / 3)
    assert placed[1].signals[diversify.SIGNAL] == pytest.approx(-W.REDUNDANCY_PENALTY / 3)
    assert placed[2].score == pytest.approx(0.395 - W.REDUNDANCY_PENALTY)
    assert placed[2].signals == {"file": 0.395, diversify.SIGNAL: -W.REDUNDANCY_PENALTY}
    assert twin.score == 0.395  # the hits given are left as they were


def test_scores_never_rise_down_the_placed_hits() -> None:
    hits = [
        _hit(str(n), 0.40 - 0.002 * n, "a.c", *(["b.c"] if n % 2 else [f"{n}.c"])) for n in range(8)
    ]
    placed = spread(hits)
    assert sorted(h.memory.id for h in placed) == sorted(h.memory.id for h in hits)
    scores = [h.score for h in placed]
    assert scores == sorted(scores, reverse=True)


def test_notes_on_different_files_or_none_keep_their_order() -> None:
    hits = [_hit("a", 0.40, "a.c"), _hit("b", 0.40, "b.c"), _hit("c", 0.39), _hit("d", 0.38)]
    assert spread(hits) == hits


def test_through_the_engine_a_note_on_other_files_passes_a_twin(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit of a file with four notes: its origin, a note on it and another file, then two
    notes on it and a third file. By score alone the older twin comes right after the newer
    one; spread, the note on other files passes it."""
    world.history([["src/a.c", "src/b.c", "src/d.c", "src/e.c"]])
    world.remember("origin of a", "src/a.c", "src/e.c", created="2025-01-01T12:00:00+00:00")
    other = world.remember("a and d", "src/a.c", "src/d.c", created="2026-05-28T12:00:00+00:00")
    twin = world.remember("a and b", "src/a.c", "src/b.c", created="2026-05-29T12:00:00+00:00")
    newer = world.remember(
        "a and b again", "src/a.c", "src/b.c", created="2026-05-30T12:00:00+00:00"
    )

    def order() -> list[str]:
        return [i for i in ids(world.recall("src/a.c")) if i in (other, twin, newer)]

    spread_out = world.recall("src/a.c")
    assert order() == [newer, other, twin]
    assert hit_of(spread_out, twin).signals[diversify.SIGNAL] == pytest.approx(
        -W.REDUNDANCY_PENALTY
    )
    assert diversify.SIGNAL not in hit_of(spread_out, newer).signals
    monkeypatch.setattr(W, "REDUNDANCY_PENALTY", 0.0)
    assert order() == [newer, twin, other]


def test_hits_past_the_pool_follow_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hit past the pool is never placed among it, even above one that gave up score: the
    list asked with a limit of the pool's size ends there."""
    monkeypatch.setattr(W, "SPREAD_POOL", 3)
    hits = [_hit("a", 0.400, "a.c"), _hit("b", 0.399, "a.c"), _hit("c", 0.398, "a.c")]
    later = _hit("d", 0.397, "d.c")
    placed = spread([*hits, later])
    assert [h.memory.id for h in placed] == ["a", "b", "c", "d"]
    assert placed[3] is later and placed[2].score < later.score


def test_a_shorter_limit_gives_the_head_of_a_longer_one(world: World) -> None:
    world.history([["src/a.c", "src/b.c", "src/d.c", "src/e.c"]])
    world.remember("origin of a", "src/a.c", "src/e.c", created="2025-01-01T12:00:00+00:00")
    world.remember("a and d", "src/a.c", "src/d.c", created="2026-05-28T12:00:00+00:00")
    world.remember("a and b", "src/a.c", "src/b.c", created="2026-05-29T12:00:00+00:00")
    world.remember("a and b again", "src/a.c", "src/b.c", created="2026-05-30T12:00:00+00:00")
    longer = ids(world.recall("src/a.c"))
    for limit in (1, 2, 3):
        assert ids(world.recall("src/a.c", limit=limit)) == longer[:limit]


def test_a_hit_held_back_takes_nothing_from_the_hits_shown() -> None:
    """The hits shown (the trust gate's, the strong ones) are placed again among themselves:
    without the hit placed first, its twin loses nothing and passes a note on other files."""
    first, twin = _hit("f", 0.400, "a.c", "b.c"), _hit("t", 0.395, "a.c", "b.c")
    other = _hit("o", 0.390, "a.c", "d.c")
    shown = [h for h in spread([first, twin, other]) if h.memory.id != "f"]
    assert [h.memory.id for h in shown] == ["o", "t"]
    again = respread(shown)
    assert [h.memory.id for h in again] == ["t", "o"]
    assert again[0].score == 0.395 and diversify.SIGNAL not in again[0].signals
    assert again[1].signals[diversify.SIGNAL] == pytest.approx(-W.REDUNDANCY_PENALTY / 3)


def test_the_injection_spreads_its_strong_hits_among_themselves() -> None:
    weak = dataclasses.replace(_hit("w", 0.400, "a.c", "b.c"), strong=False)
    gotcha = _hit("g", 0.395, "a.c", "b.c")
    other = _hit("o", 0.390, "a.c", "d.c")
    chosen = inject.select(spread([weak, gotcha, other]))
    assert [h.memory.id for h in chosen] == ["g", "o"]
