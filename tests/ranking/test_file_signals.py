"""File affinity through the real engine: edited files, path rarity, deleted and renamed files.

Each test builds a real git repository, writes memories through the store, lets the genome
index the history and asks the real ``Recaller``. Orderings and the presence of signals are
asserted; magnitudes only where a constant of ``recall.ranking.weights`` is the point. The
memories are a month old by the clock, so a file's newest bonus is a month's fade short of
full (``newest_bonus``).
"""

from __future__ import annotations

import pytest

from recall.ranking import weights as W

from .world import World, describe, hit_of, ids, newest_bonus

PROMPT = "why does the session cache flush fail on close?"


def test_memory_on_the_edited_file_beats_text_only_matches(world: World) -> None:
    world.history([["src/store/session.py", "src/other/a.py", "src/other/b.py"]])
    world.crowd("src/other/c.py", 30, topic="filler remark")  # gives bm25 a real corpus
    on_file = world.remember("keep the retry budget small", "src/store/session.py")
    text_only = [
        world.remember("session cache flush fails on close", "src/other/a.py"),
        world.remember("flush the session cache before close, or close fails", "src/other/b.py"),
        world.remember("a session cache flush on close may fail twice", "src/other/b.py"),
    ]
    world.remember("unrelated note about logging", "src/other/a.py")

    result = world.recall("src/store/session.py", prompt=PROMPT)

    assert ids(result)[0] == on_file, describe(result)
    first = result.hits[0]
    assert first.receipt.startswith("via file")
    assert "file" in first.signals
    for memory_id in text_only:
        hit = hit_of(result, memory_id)
        assert "file" not in hit.signals
        assert "words" in hit.signals or "trigram" in hit.signals
        assert hit.receipt.startswith("via text")
        assert hit.score < first.score


def test_file_hit_outranks_the_strongest_possible_text_match(world: World) -> None:
    # Even a file that is only open outranks a memory whose summary is the prompt itself.
    world.history([["src/a.py", "src/b.py"]])
    world.crowd("src/c.py", 30, topic="filler remark")
    opened = world.remember("prefer small functions here", "src/a.py")
    echo = world.remember("why does the session cache flush fail on close", "src/b.py")

    result = world.recall(opens=["src/a.py"], prompt=PROMPT)

    assert ids(result)[:2] == [opened, echo], describe(result)
    assert hit_of(result, opened).signals["file"] == pytest.approx(
        W.file_affinity(1, "open") + newest_bonus(0) * W.touch_weight("open"), rel=1e-6
    )


def test_sole_owner_of_a_touched_path_beats_the_crowd_on_a_hot_path(world: World) -> None:
    world.history([["src/store/store.ts", "src/store/lock.ts"]])
    crowd = world.crowd("src/store/store.ts", 12)
    rare = world.remember("release the lock in finally, always", "src/store/lock.ts")

    result = world.recall("src/store/store.ts", "src/store/lock.ts", limit=20)

    assert ids(result)[0] == rare, describe(result)
    assert set(ids(result)[1:]) == set(crowd)
    sole = hit_of(result, rare).signals["file"]
    # each is the newest on its file (the crowd was written at once): the same bonus for all
    assert sole == pytest.approx(W.RARITY_SOLE_OWNER + newest_bonus(0))
    for memory_id in crowd:
        shared = hit_of(result, memory_id).signals["file"]
        assert shared == pytest.approx(W.rarity_bonus(12) + newest_bonus(0))
        # rarity is a premium on the floor, never a discount below it
        assert W.FILE_AFFINITY_FLOOR < shared < sole


def test_a_path_shared_by_46_memories_is_worth_the_seed_anchor(world: World) -> None:
    world.history([["src/store/store.ts"]])
    crowd = world.crowd("src/store/store.ts", W.RARITY_ANCHOR_OWNERS)

    result = world.recall("src/store/store.ts", limit=W.RARITY_ANCHOR_OWNERS)

    assert set(ids(result)) == set(crowd)
    for hit in result.hits:
        assert hit.signals["file"] == pytest.approx(W.RARITY_ANCHOR_VALUE + newest_bonus(0))


@pytest.mark.parametrize("how", ["committed", "working tree only"])
def test_a_deleted_file_earns_no_file_affinity(world: World, how: str) -> None:
    world.history([["src/gone.py", "src/kept.py"]])
    gone = world.remember("the gone module caches forever", "src/gone.py")
    kept = world.remember("the kept module is thread safe", "src/kept.py")
    before = world.recall("src/gone.py", "src/kept.py")
    assert "file" in hit_of(before, gone).signals  # it had the card while the file existed

    if how == "committed":
        world.delete("src/gone.py")
    else:
        (world.root / "src/gone.py").unlink()
    after = world.recall("src/gone.py", "src/kept.py")

    assert "file" in hit_of(after, kept).signals
    assert gone not in ids(after), describe(after)


def test_a_deleted_file_loses_to_a_live_one_when_text_still_finds_it(world: World) -> None:
    world.history([["src/gone.py", "src/kept.py"]])
    gone = world.remember("session cache flush fails on close", "src/gone.py")
    kept = world.remember("prefer explicit imports", "src/kept.py")
    world.delete("src/gone.py")

    result = world.recall("src/gone.py", "src/kept.py", prompt=PROMPT)

    assert ids(result)[0] == kept, describe(result)
    stale = hit_of(result, gone)
    assert "file" not in stale.signals
    assert stale.receipt.startswith("via text")


def test_a_renamed_file_keeps_its_memory_and_the_receipt_names_the_old_path(
    world: World,
) -> None:
    world.history([["src/api/client.ts", "src/api/other.ts"]])
    note = world.remember("client retries are not idempotent", "src/api/client.ts")
    world.remember("other is generated, do not edit", "src/api/other.ts")
    world.rename("src/api/client.ts", "src/api/http.ts")

    result = world.recall("src/api/http.ts")

    assert ids(result)[0] == note, describe(result)
    hit = hit_of(result, note)
    assert hit.receipt.startswith("via file (renamed from src/api/client.ts)")
    assert hit.signals["file"] == pytest.approx(W.RARITY_SOLE_OWNER + newest_bonus(0))


def test_touching_the_old_name_of_a_renamed_file_earns_nothing(world: World) -> None:
    world.history([["src/api/client.ts"]])
    note = world.remember("client retries are not idempotent", "src/api/client.ts")
    world.rename("src/api/client.ts", "src/api/http.ts")

    result = world.recall("src/api/client.ts")

    assert note not in ids(result), describe(result)


def test_an_edit_weighs_more_than_an_open(world: World) -> None:
    world.history([["src/a.py", "src/b.py"]])
    edited = world.remember("a: validate before saving", "src/a.py")
    opened = world.remember("b: validate before saving twice", "src/b.py")

    result = world.recall("src/a.py", opens=["src/b.py"])

    assert ids(result) == [edited, opened]
    assert hit_of(result, opened).signals["file"] == pytest.approx(
        W.file_affinity(1, "open") + newest_bonus(0) * W.touch_weight("open"), rel=1e-6
    )
