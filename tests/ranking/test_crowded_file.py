"""A file named by more memories than a file channel passes on (``W.FILE_CANDIDATES_MAX``):
its best-ranked memories are ranked, a cut one that the prompt's words find keeps its file
evidence, and every hit that came through the cut says so in its receipt."""

from __future__ import annotations

import pytest

from recall.policy.usage import record_action
from recall.ranking import weights as W

from .world import World, describe, hit_of, ids

HUB = "src/hub.py"
CAP = 40
NOTE = f"ranked among the {CAP:,} strongest of 102 on its files"


@pytest.fixture
def crowded(world: World, monkeypatch: pytest.MonkeyPatch) -> tuple[World, str]:
    """102 memories on one file, the cap at 40; the id of one that the cut leaves out of the
    file channel's best 40: older than 100 of the others (equal file evidence ranks newest
    first), and not the file's first (which has the origin bonus)."""
    world.history([[HUB], ["src/other.py"]])
    world.remember(
        "the hub began as the parser's helpers",
        HUB,
        category="context",
        created="2020-01-01T00:00:00+00:00",
    )
    cut_one = world.remember(
        "vacuum holds the writer lock until the checkpoint ends",
        HUB,
        category="context",
        created="2021-01-01T00:00:00+00:00",
    )
    world.crowd(HUB, 100)
    monkeypatch.setattr(W, "FILE_CANDIDATES_MAX", CAP)
    return world, cut_one


def test_every_hit_through_a_cut_file_channel_says_so(crowded: tuple[World, str]) -> None:
    world, _cut_one = crowded
    result = world.recall(HUB)
    assert len(result.hits) == 10
    assert all(NOTE in hit.receipt for hit in result.hits), describe(result)
    assert all(hit.receipt.startswith("via file") for hit in result.hits), describe(result)


def test_a_cut_memory_the_words_find_keeps_its_file_evidence(crowded: tuple[World, str]) -> None:
    world, cut_one = crowded
    result = world.recall(HUB, prompt="vacuum writer lock checkpoint")
    hit = hit_of(result, cut_one)
    assert result.hits[0].memory.id == cut_one, describe(result)
    assert "file" in hit.signals, hit.signals
    assert hit.receipt.startswith("via file"), hit.receipt
    assert "strongest of" not in hit.receipt  # it was not among the ranked ones


def test_a_file_under_the_cap_is_ranked_whole_without_a_note(world: World) -> None:
    world.history([[HUB]])
    world.crowd(HUB, 30)
    result = world.recall(HUB)
    assert len(result.hits) == 10
    assert not any("strongest of" in hit.receipt for hit in result.hits), describe(result)


def test_a_text_only_hit_beside_a_cut_file_carries_no_note(crowded: tuple[World, str]) -> None:
    world, _cut_one = crowded
    elsewhere = world.remember(
        "the exporter batches rows by the thousand", "src/other.py", category="context"
    )
    hit = hit_of(world.recall(HUB, prompt="exporter batches rows thousand", limit=60), elsewhere)
    assert "strongest of" not in hit.receipt, hit.receipt


def test_a_pinned_memory_on_a_crowded_file_is_never_cut(crowded: tuple[World, str]) -> None:
    world, _cut_one = crowded
    pinned = world.remember(
        "the hub's buffers are owned by the caller",
        HUB,
        category="context",
        pinned=True,
        created="2021-06-01T00:00:00+00:00",
    )
    result = world.recall(HUB)
    assert result.hits[0].memory.id == pinned, describe(result)
    assert "strongest of" not in result.hits[0].receipt


def test_a_memory_acted_on_on_a_crowded_file_is_never_cut(crowded: tuple[World, str]) -> None:
    world, cut_one = crowded
    record_action(world.project.conn, cut_one)
    result = world.recall(HUB, limit=40)
    assert cut_one in [hit.memory.id for hit in result.hits], describe(result)


def test_a_crowded_neighbour_keeps_its_newest_memories(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Co-change gives every memory on a neighbouring file one rank: the cut keeps its
    newest (and gotchas), not the first the index returns."""
    world.history([["src/a.py", HUB]] * 6)
    world.crowd(HUB, 100)
    new = [
        world.remember(
            f"newer hub note {n}", HUB, category="context", created=f"2026-06-0{n}T00:00:00+00:00"
        )
        for n in (1, 2, 3)
    ]
    monkeypatch.setattr(W, "FILE_CANDIDATES_MAX", CAP)
    result = world.recall("src/a.py")
    assert set(new) <= {hit.memory.id for hit in result.hits[:3]}, describe(result)


def test_a_co_change_cut_keeps_what_adds_most_to_a_score(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Co-change lists the first touched file's neighbours first, however weak: a crowded weak
    neighbour of the first file must not push out a strong neighbour of the second."""
    weak = [["src/a.py", HUB]] * 3 + [["src/a.py"]] * 7  # 3 of a.py's 10 commits: 0.3
    strong = [["src/c.py", "src/d.py"]] * 8  # every one of c.py's commits
    world.history(weak + strong)
    world.crowd(HUB, 60)
    on_d = [
        world.remember(f"d keeps its own cache {n}", "src/d.py", category="context") for n in (1, 2)
    ]
    monkeypatch.setattr(W, "FILE_CANDIDATES_MAX", CAP)
    result = world.recall("src/a.py", "src/c.py", limit=60)
    assert set(on_d) <= {hit.memory.id for hit in result.hits[:2]}, describe(result)


def test_notes_stay_with_their_hits_when_the_spread_reorders_them(
    crowded: tuple[World, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The spread over files moves a text-only hit above the cut file's memories (all on the
    same file); the notes of the cut go with the hits they were made for, as without it."""
    world, _cut_one = crowded
    elsewhere = world.remember(
        "the exporter batches rows by the thousand", "src/other.py", category="context"
    )
    monkeypatch.setattr(W, "SPREAD_POOL", 60)

    def noted() -> tuple[list[str], dict[str, bool]]:
        result = world.recall(HUB, prompt="exporter batches rows thousand", limit=60)
        return ids(result), {hit.memory.id: NOTE in hit.receipt for hit in result.hits}

    monkeypatch.setattr(W, "REDUNDANCY_PENALTY", 0.0)
    order, notes = noted()
    assert order[1] != elsewhere and any(notes.values())
    monkeypatch.setattr(W, "REDUNDANCY_PENALTY", 0.5)
    spread_order, spread_notes = noted()
    assert spread_order[1] == elsewhere  # moved above the memories sharing the hub
    assert spread_notes == notes
