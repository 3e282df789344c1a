"""The facts an engine keeps between recalls give the same answers however often they are
dropped for room."""

from __future__ import annotations

import pytest

from recall.ranking.facts import FactsMemo
from recall.ranking.query import RecallQuery, Touch

from .world import World


def _ring_world(world: World) -> list[str]:
    world.history([["src/ring.c", "src/lock.c"]])
    return [
        world.remember(f"ring buffer note {n}", "src/ring.c", *(["src/lock.c"] if n % 2 else []))
        for n in range(6)
    ]


def test_a_memo_that_runs_out_of_room_still_answers_for_everything_asked(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ring_world(world)
    conn = world.project.conn
    rowids = [r for (r,) in conn.execute("SELECT rowid FROM memories ORDER BY rowid")]
    roomy = FactsMemo()
    expected = (roomy.statics(conn, rowids), roomy.files(conn, rowids))
    monkeypatch.setattr(FactsMemo, "LIMIT", 4)
    tight = FactsMemo()
    tight.statics(conn, rowids[:3])
    tight.files(conn, rowids[:3])
    assert tight.statics(conn, rowids) == expected[0]  # past the limit: emptied, all read again
    assert tight.files(conn, rowids) == expected[1]
    assert len(tight.owners(conn, ["src/ring.c", "src/lock.c"])["src/ring.c"]) == 6


def test_recall_ranks_the_same_with_a_memo_short_of_room(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ring_world(world)
    query = RecallQuery((Touch("src/ring.c", "edit"),), "ring buffer", scopes=("project",))
    roomy = [(h.memory.id, h.score) for h in world.recaller().recall(query).hits]
    monkeypatch.setattr(FactsMemo, "LIMIT", 2)
    recaller = world.recaller()
    for _ in range(2):
        assert [(h.memory.id, h.score) for h in recaller.recall(query).hits] == roomy
