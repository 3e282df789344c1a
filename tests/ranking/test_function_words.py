"""Function words ("in", "the", "with") weigh a text match another word made, never make one.

In a small store "in" is held by as few memories as "netlink", so its idf is as high: a
memory whose only word in common with "memory leak in netlink answer" was "in" ranked first.
Recalled through the real CLI over a real store, as a new user meets it.
"""

from __future__ import annotations

import json

import pytest
from conftest import CliResult, run_tether

from recall.ranking import text_channel as tc
from recall.ranking import weights as W

from .world import World, hit_of


def tether(world: World, *args: str) -> CliResult:
    """Run the real CLI in the world's repository."""
    return run_tether(*args, cwd=world.root)


@pytest.fixture
def small_store(world: World) -> dict[str, str]:
    """Six memories, two on netlink, one sharing only "in" with the prompt; {name: id}."""
    world.history([["ip/link.c"]])
    made = {
        "only_in": world.remember("Retry logic lives in the worker pool"),
        "netlink_a": world.remember("Netlink socket buffers must be drained before close"),
        "netlink_b": world.remember("Netlink dump requests are paged by the kernel"),
        "arena": world.remember("Use the arena allocator for parser nodes", category="context"),
        "config": world.remember("Config files are parsed with strict mode", category="decision"),
        "logging": world.remember("Logging goes to stderr by default", category="context"),
    }
    world.close()  # the CLI is the only user of the index from here on
    return made


def recalled(world: World, prompt: str) -> list[dict[str, object]]:
    """The results of ``tether recall --json --no-record PROMPT``."""
    done = tether(world, "recall", "--json", "--no-record", prompt)
    assert done.code == 0, done
    return done.json()["results"]


def test_a_memory_sharing_only_in_does_not_outrank_the_netlink_ones(
    world: World, small_store: dict[str, str]
) -> None:
    results = recalled(world, "memory leak in netlink answer")

    order = [item["id"] for item in results]
    assert order[:2] == sorted(
        [small_store["netlink_a"], small_store["netlink_b"]], key=order.index
    ), results
    # it shares no word that says what it is about: the text channel does not offer it at all
    assert small_store["only_in"] not in order, results


def test_a_prompt_of_function_words_alone_matches_no_text(
    world: World, small_store: dict[str, str]
) -> None:
    done = tether(world, "recall", "--json", "--no-record", "what is in the")

    assert done.code == 1, done  # nothing recalled is the answer (and exits 1, as ever)
    assert done.json()["results"] == []


def test_beside_a_real_match_a_function_word_still_counts(world: World) -> None:
    world.history([["ip/link.c"]])
    with_in = world.remember("netlink drained in close")
    with_at = world.remember("netlink drained at close")
    world.remember("unrelated allocator note")

    result = world.recall(prompt="netlink in")

    # same length, same netlink match: the one that also holds "in" scores more
    assert hit_of(result, with_in).signals["words"] > hit_of(result, with_at).signals["words"]


def test_function_words_are_kept_only_beside_another_word(world: World) -> None:
    world.history([["ip/link.c"]])
    world.remember("netlink drained in close")
    world.remember("queue flushed in order")
    vocabulary = tc.Vocabulary(world.project.conn)

    assert tc.text_terms(vocabulary, ["in", "netlink"], 2) == ["in", "netlink"]
    assert tc.text_terms(vocabulary, ["in"], 2) == []
    # a word no memory holds is no company for a function word
    assert tc.text_terms(vocabulary, ["in", "zzyzx"], 2) == []


def test_the_function_word_list() -> None:
    assert {"in", "the", "with", "of", "is", "which"} <= W.FUNCTION_WORDS
    # words that name something in code are not on it
    assert not {"can", "us", "up", "down", "link", "not"} & W.FUNCTION_WORDS
    assert W.is_function_word("in") and not W.is_function_word("netlink")


def test_the_long_lived_engine_ranks_as_the_one_query_process(
    world: World, small_store: dict[str, str]
) -> None:
    """``--batch`` keeps one engine (its text channel scores from kept counts, not FTS5's own
    path): function words must weigh the same there."""
    prompts = ["memory leak in netlink answer", "netlink in the kernel"]
    batch = "".join(json.dumps({"prompt": prompt}) + "\n" for prompt in prompts)
    done = run_tether("recall", "--batch", "-", "--no-record", cwd=world.root, stdin=batch)
    assert done.code == 0, done
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    for prompt, line in zip(prompts, lines, strict=True):
        kept = [item["id"] for item in line["results"]]
        assert kept == [item["id"] for item in recalled(world, prompt)], prompt
        assert small_store["only_in"] not in kept
