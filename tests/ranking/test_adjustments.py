"""The semantic gate, pinning and the feedback terms, through the real engine.

Semantic: a hash-bag cosine below ``SEMANTIC_GATE`` earns rank credit only (no ``semantic``
magnitude, no ``sem`` in the receipt); at or above it the magnitude and ``sem 0.xx`` appear.
Pinned: the bonus and ``pinned`` in the receipt, no ignore penalty and no decay. Feedback:
the ignore penalty after repeated surfacings, recency anchored on the last action.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from recall.policy.usage import record_action, record_surfacings
from recall.ranking import weights as W

from .world import NOW, World, describe, hit_of, ids

QUESTION = "how do I rename it?"


def days_between(earlier: str, later: str) -> float:
    """Days from one ISO timestamp to another."""
    return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds() / 86400


def test_semantic_below_the_gate_gives_rank_credit_only(world: World) -> None:
    world.history([["src/io/fs.py", "src/io/batch.py"]])
    close = world.remember("safeRename", "src/io/fs.py")
    far = world.remember(
        "always call safeRename when writing session files to the disk after every batch",
        "src/io/batch.py",
    )

    result = world.recall(prompt=QUESTION)

    above = world.semantic_cosine(result.query_text, close)
    below = world.semantic_cosine(result.query_text, far)
    assert 0 < below < W.SEMANTIC_GATE <= above  # the set-up straddles the gate
    weak, strong = hit_of(result, far), hit_of(result, close)
    for hit in (weak, strong):
        assert not {"words", "trigram", "file"} & set(hit.signals), hit.signals  # semantic only
    assert "semantic_rank" in weak.signals
    assert "semantic" not in weak.signals
    assert "sem " not in weak.receipt
    assert weak.receipt == "via weak similarity"
    assert strong.signals["semantic"] == pytest.approx(W.semantic_magnitude(above), rel=1e-4)
    assert f"sem {above:.2f}" in strong.receipt
    assert ids(result) == [close, far]
    assert not weak.strong  # rank credit alone never earns an injection


def test_a_file_hit_with_a_semantic_match_shows_both_in_the_receipt(world: World) -> None:
    world.history([["src/io/fs.py"]])
    note = world.remember("safeRename", "src/io/fs.py")

    result = world.recall("src/io/fs.py", prompt=QUESTION)

    cos = world.semantic_cosine(result.query_text, note)
    assert cos >= W.SEMANTIC_GATE
    assert hit_of(result, note).receipt == f"via file, sem {cos:.2f}"


def test_pinned_adds_the_bonus_and_says_so(world: World) -> None:
    world.history([["src/a.py"]])
    plain = world.remember("a: keep the public signature stable", "src/a.py")
    pinned = world.remember("a: never log the token", "src/a.py", pinned=True)

    result = world.recall("src/a.py")

    assert ids(result) == [pinned, plain]
    top, other = hit_of(result, pinned), hit_of(result, plain)
    assert top.signals["pinned"] == pytest.approx(W.PINNED_BONUS)
    assert top.receipt == "via file, pinned"
    assert "pinned" not in other.signals
    assert "pinned" not in other.receipt


def test_an_unrelated_pin_does_not_beat_a_direct_file_hit(world: World) -> None:
    world.history([["src/a.py", "src/b.py"]])
    direct = world.remember("a: keep the public signature stable", "src/a.py")
    pinned = world.remember("a signature is stable, pinned rule", "src/b.py", pinned=True)

    result = world.recall("src/a.py", prompt="is the signature stable?")

    assert ids(result)[0] == direct, describe(result)
    assert "pinned" in hit_of(result, pinned).receipt


def test_pinned_is_exempt_from_the_ignore_penalty(world: World) -> None:
    world.history([["src/a.py"]])
    plain = world.remember("a: keep the public signature stable", "src/a.py")
    pinned = world.remember("a: never log the token", "src/a.py", pinned=True)
    for _ in range(8):
        record_surfacings(world.project.conn, [plain, pinned])

    result = world.recall("src/a.py")

    assert hit_of(result, plain).signals["ignored"] == pytest.approx(W.ignore_penalty(8, 0))
    assert W.ignore_penalty(8, 0) == -W.IGNORE_PENALTY_MAX
    assert "ignored" not in hit_of(result, pinned).signals


def test_pinned_memories_never_decay(world: World) -> None:
    # weights: "pinned +0.10, and exempt from decay"; recency_bonus(pinned=True) is the full
    # boost (both time scales). A pinned memory must not lose the recency its unpinned twin keeps.
    world.history([["src/a.py"]])
    old = "2024-01-01T00:00:00+00:00"
    pinned = world.remember("a: never log the token", "src/a.py", pinned=True, created=old)
    plain = world.remember("a: keep the public signature stable", "src/a.py", created=NOW)

    result = world.recall("src/a.py")

    expected = W.recency_bonus(days_between(old, NOW), pinned=True)
    assert expected == pytest.approx(W.recency_top())
    assert hit_of(result, plain).signals["recency"] == pytest.approx(W.recency_top())
    assert hit_of(result, pinned).signals.get("recency", 0.0) == pytest.approx(expected)


def test_recency_is_anchored_on_the_last_action_never_on_surfacing(world: World) -> None:
    world.history([["src/a.py"]])
    old = "2025-06-01T12:00:00+00:00"
    acted = world.remember("a: retry once on EAGAIN", "src/a.py", created=old)
    shown = world.remember("a: prefer pathlib over os.path", "src/a.py", created=old)
    action = "2026-05-31T12:00:00+00:00"
    record_action(world.project.conn, acted, when=action)
    record_surfacings(world.project.conn, [shown], when=NOW)

    result = world.recall("src/a.py")

    fresh, stale = hit_of(result, acted), hit_of(result, shown)
    assert fresh.signals["recency"] == pytest.approx(W.recency_bonus(days_between(action, NOW)))
    assert stale.signals["recency"] == pytest.approx(W.recency_bonus(days_between(old, NOW)))
    assert fresh.signals["acted"] == pytest.approx(W.acted_bonus(1))
    assert ids(result)[0] == acted


def test_a_pin_on_a_crowded_file_still_ranks_first(world: World) -> None:
    # On a hot file every memory has the same file magnitude, so fused scores differ only by
    # RRF rank credit (by rowid); the pin's bonus must still lift it above the crowd however
    # many memories share the file.
    world.history([["src/store/store.ts"]])
    world.crowd("src/store/store.ts", 120)  # more than any candidate cut would keep
    pinned = world.remember(
        "store: never call save() before hydrate()", "src/store/store.ts", pinned=True
    )

    result = world.recall("src/store/store.ts", limit=5)

    assert ids(result)[0] == pinned, describe(result)
