"""Which query words the text channel asks for: common ones and ones past the budget left out,
words no memory holds never taking the place of the rarest word that matches."""

from __future__ import annotations

import pytest

from recall import weights as W
from recall.ranking import channels as ch

from .world import World, hit_of

PATH = "src/net/retry.c"


@pytest.fixture
def store_words(world: World) -> World:
    world.history([[PATH], ["src/other.c"]])
    for n in range(10):
        world.remember(f"retry with backoff, case {n}", PATH)
    for n in range(3):
        world.remember(f"jitter the timer, case {n}", "src/other.c")
    for n in range(20):
        world.remember(f"unrelated queue note {n}", "src/other.c")
    return world


def test_an_unknown_word_does_not_push_out_the_rarest_match(
    store_words: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = store_words.project.conn
    monkeypatch.setattr(W, "TEXT_MATCH_BUDGET", 5)

    kept = ch.text_terms(ch.Vocabulary(conn), ["zzyzx", "backoff"], 33)

    # "backoff" alone is over the budget, but it is the rarest word that matches anything
    assert kept == ["backoff"]


def test_the_budget_leaves_out_the_more_common_words(
    store_words: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = store_words.project.conn
    monkeypatch.setattr(W, "TEXT_MATCH_BUDGET", 5)

    kept = ch.text_terms(ch.Vocabulary(conn), ["backoff", "jitter", "zzyzx"], 33)

    assert kept == ["jitter"]  # 3 matches fit; backoff's 10 more would not


def test_recall_matches_text_when_the_prompt_has_an_unknown_word(
    store_words: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(W, "TEXT_MATCH_BUDGET", 5)
    result = store_words.recall(prompt="zzyzx backoff please")
    assert result.hits
    assert all(hit.signals.get("words", 0.0) > 0 for hit in result.hits[:3])
    assert "via text" in hit_of(result, result.hits[0].memory.id).receipt
