"""A recall without a prompt on a file whose own memories fill the hits asked for: the
memories of the files that change with it are not read when the most co-change and the
adjustments could give them stays under the hits' bar, and the hits are those of the recall
that reads and scores them all."""

from __future__ import annotations

import sqlite3

from recall.ranking import file_channels as fc
from recall.ranking.adjust import adjust_reach
from recall.ranking.engine import Recaller
from recall.ranking.query import RecallQuery, Touch

from .world import World

HUB = "src/hub.c"
PARTNER = "src/partner.c"


def _world(world: World) -> tuple[list[str], list[str]]:
    """``HUB`` changes with ``PARTNER`` in every commit; 12 memories name ``HUB`` (more than
    the ten a recall ranks whatever its limit, for the spread over files), 30 others
    ``PARTNER`` (one of them pinned: its bonus is within the bound)."""
    world.history([[HUB, PARTNER]] * 6)
    on_hub = world.crowd(HUB, 12, topic="hub step")
    on_partner = world.crowd(PARTNER, 30, topic="partner step")
    store = world.project
    store.conn.execute("UPDATE memories SET pinned = 1 WHERE id = ?", (on_partner[0],))
    store.conn.commit()
    return on_hub, on_partner


def _recall(recaller: Recaller, kind: str, limit: int, prompt: str | None = None) -> list[tuple]:
    query = RecallQuery((Touch(HUB, kind),), prompt, limit=limit, scopes=("project",))
    return [
        (h.memory.id, h.score, h.receipt, sorted(h.signals.items()), h.strong, h.drift)
        for h in recaller.recall(query).hits
    ]


def _statements(conn: sqlite3.Connection, run: object) -> list[str]:
    """The statements (with their bound values) SQLite ran for ``run()``."""
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        run()  # type: ignore[operator]
    finally:
        conn.set_trace_callback(None)
    return seen


def _of_partner(statements: list[str]) -> list[str]:
    """The statements that read the memories naming ``PARTNER``."""
    return [s for s in statements if "memory_files" in s and PARTNER in s]


def test_a_neighbours_memories_out_of_reach_are_not_read(world: World) -> None:
    _world(world)
    genome = world.genome()
    neighbours = fc.cochange_neighbours(
        fc.touch_weights([Touch(HUB, "edit")]), genome.neighbours, genome.exists
    )
    assert [n.path for n in neighbours] == [PARTNER]
    recaller = world.recaller()
    conn = world.project.conn
    shown: list[list[tuple]] = []
    read = _statements(conn, lambda: shown.append(_recall(recaller, "edit", 3)))
    assert shown[0] and min(score for _, score, *_ in shown[0]) > (
        fc.cochange_bound(neighbours) + adjust_reach()
    )
    assert not _of_partner(read)  # nothing of the neighbour's memories
    # asked for them all, the neighbour's memories are read and ranked behind the hub's
    wide: list[list[tuple]] = []
    read = _statements(conn, lambda: wide.append(_recall(world.recaller(), "edit", 100)))
    assert _of_partner(read)
    assert len(wide[0]) == 42


def test_the_bound_never_changes_a_ranking(world: World) -> None:
    _world(world)
    for kind in ("open", "edit"):
        wide = _recall(world.recaller(), kind, 100)  # every candidate read and scored
        for limit in (1, 3, 6, 7, 8, 9, 20):
            assert _recall(world.recaller(), kind, limit) == wide[:limit], (kind, limit)
        # a prompt ranks through the text channels: co-change is read as before
        with_prompt = _recall(world.recaller(), kind, 100, prompt="partner step")
        assert {h[0] for h in with_prompt} == {h[0] for h in wide}
