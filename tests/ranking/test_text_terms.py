"""Which query words the text channel asks for: common ones and ones past the budget left out,
words no memory holds never taking the place of the rarest word that matches."""

from __future__ import annotations

import pytest

from recall.ranking import text_channel as tc
from recall.ranking import weights as W

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

    kept = tc.text_terms(tc.Vocabulary(conn), ["zzyzx", "backoff"], 33)

    # "backoff" alone is over the budget, but it is the rarest word that matches anything
    assert kept == ["backoff"]


def test_the_budget_leaves_out_the_more_common_words(
    store_words: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = store_words.project.conn
    monkeypatch.setattr(W, "TEXT_MATCH_BUDGET", 5)

    kept = tc.text_terms(tc.Vocabulary(conn), ["backoff", "jitter", "zzyzx"], 33)

    assert kept == ["jitter"]  # 3 matches fit; backoff's 10 more would not


def test_recall_matches_text_when_the_prompt_has_an_unknown_word(
    store_words: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(W, "TEXT_MATCH_BUDGET", 5)
    result = store_words.recall(prompt="zzyzx backoff please")
    assert result.hits
    assert all(hit.signals.get("words", 0.0) > 0 for hit in result.hits[:3])
    assert "via text" in hit_of(result, result.hits[0].memory.id).receipt


@pytest.mark.parametrize(
    ("summary", "prompt"),
    [
        ("Το σφάλμα στον διακομιστή", "σφάλμα"),  # Greek keeps its accents in the index
        ("ガベージコレクションが遅い", "ガベージコレクションが遅い"),  # so does kana's voicing
        ("Ошибка: мой сервер падает", "мой сервер"),
        ("Le café déborde", "cafe"),  # Latin loses its accents
    ],
)
def test_words_in_any_script_are_matched_as_text(world: World, summary: str, prompt: str) -> None:
    world.history([["a.c"], ["b.c"]])
    wanted = world.remember(summary, "a.c")
    world.remember("unrelated other note", "b.c")
    conn = world.project.conn

    assert all(tc.Vocabulary(conn).documents_with(word) >= 1 for word in prompt.split())
    result = world.recall(prompt=prompt)

    assert hit_of(result, wanted).signals.get("words", 0.0) > 0
