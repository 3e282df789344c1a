"""The memory that brought in what the prompt names comes before its neighbours on the file.

On a file with several notes that share the prompt's words, the one whose summary announces
bringing the named thing in (``parser: add streaming mode``) is what a prompt about that
thing (``parser: fix streaming mode stall``) goes back to; it gets ``W.INTRODUCER_BONUS``.
"""

from __future__ import annotations

import pytest

from recall.ranking import introducers
from recall.ranking import weights as W

from .world import World, describe, ids

PATH = "src/parser.py"


def test_the_prompt_names_things_by_the_words_after_its_component_prefix() -> None:
    named = introducers.named_words("tc: flower: Fix the output of the ports")
    # the prefix's words and the function words name nothing
    assert named == frozenset({"fix", "output", "ports"})
    assert introducers.named_words("tc: flower:") == frozenset()


@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        ("tc: flower: add ports support", True),
        ("Implement the output of flows", True),
        ("tc: flower: fix the ports", False),  # a repair brings nothing in
        ("tc: flower: add vlan matching", False),  # brings in something not named
        ("ports: add vlan matching", False),  # the shared word is only its prefix
        ("Support for ports", True),
    ],
)
def test_a_summary_introduces_what_it_brings_in(summary: str, expected: bool) -> None:
    named = introducers.named_words("tc: flower: Fix the output of the ports")
    assert introducers.introduces(summary, named) is expected


def _three_notes(world: World) -> dict[str, str]:
    """Three notes on one file, all sharing "streaming mode" with the prompt, the one that
    brought it in the oldest of them (without the bonus, the newer ones rank before it), after
    a first note on the file (its origin)."""
    world.history([[PATH]])
    made = {
        "origin": world.remember(
            "parser: tokenizer draft", PATH, category="context", created="2025-06-05T10:00:00Z"
        ),
        "added": world.remember(
            "parser: add streaming mode", PATH, category="context", created="2026-03-05T08:00:00Z"
        ),
        "renamed": world.remember(
            "parser: rename streaming mode flag",
            PATH,
            category="context",
            created="2026-03-05T09:00:00Z",
        ),
        "tidied": world.remember(
            "parser: streaming mode comments",
            PATH,
            category="context",
            created="2026-03-05T10:00:00Z",
        ),
    }
    return made


def test_the_note_that_brought_the_named_thing_in_ranks_first(world: World) -> None:
    made = _three_notes(world)
    result = world.recall(PATH, prompt="parser: fix streaming mode stall")
    assert ids(result)[0] == made["added"], describe(result)
    assert "introduces" in result.hits[0].signals


def test_without_the_bonus_the_newer_notes_rank_first(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _three_notes(world)
    monkeypatch.setattr(W, "INTRODUCER_BONUS", 0.0)
    result = world.recall(PATH, prompt="parser: fix streaming mode stall")
    assert ids(result)[0] != made["added"], describe(result)


def test_a_prompt_without_named_words_gives_no_bonus(world: World) -> None:
    _three_notes(world)
    result = world.recall(PATH)
    assert all("introduces" not in hit.signals for hit in result.hits)
