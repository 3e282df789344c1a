"""A crowded file whose memories each name one more file outside the module being worked on:
the module bonus they could get bounds none of them out, their files do. Only the memories
whose files could lift them into the hits asked for are adjusted in full, and the hits are
those of every candidate scored."""

from __future__ import annotations

from recall.ranking import file_channels as fc
from recall.ranking.adjust import FACTS_FIRST_ROUND, Adjuster
from recall.ranking.facts import FactsMemo
from recall.ranking.query import RecallQuery, Touch

from .world import CREATED, World

HUB = "src/hub.c"
PARTNER = "src/partner.c"
COUNT = 300


def _world(world: World) -> None:
    """``HUB`` changes with ``PARTNER`` (its module); 300 memories name ``HUB`` and a file of
    their own that nothing changes with, one names ``HUB`` and ``PARTNER``."""
    world.history([[HUB, PARTNER]] * 4)
    store = world.project
    drafts = [
        (
            store.prepare_memory(
                summary=f"hub step {n}",
                category="context",
                files=[HUB, f"docs/step{n}.txt"],
                created=CREATED,
            ),
            None,
        )
        for n in range(COUNT)
    ]
    store.import_many(drafts)
    world.remember("the hub and its partner share a lock", HUB, PARTNER, category="context")


def _adjusted_in_full(world: World, limit: int) -> int:
    """How many of the hub's candidates one recall's adjuster returns (adjusts in full)."""
    genome = world.genome()
    conn = world.project.conn
    touched = fc.touch_weights([Touch(HUB, "open")])
    neighbours = fc.cochange_neighbours(touched, genome.neighbours, genome.exists)
    memo = FactsMemo()
    aliases = fc.file_aliases(touched, genome.exists, genome.earlier_names)
    channels = {
        "file": fc.files_channel(conn, touched, aliases, memo),
    }
    adjuster = Adjuster(genome, touched, neighbours)
    assert PARTNER in adjuster.module()
    return len(adjuster.finish(world.project, memo, channels, {}, limit))


def test_memories_whose_files_keep_them_out_are_not_adjusted(world: World) -> None:
    _world(world)
    assert _adjusted_in_full(world, 3) <= FACTS_FIRST_ROUND + 1


def test_the_hits_are_those_of_every_candidate_scored(world: World) -> None:
    _world(world)
    recaller = world.recaller()

    def ranked(limit: int) -> list[tuple[str, float, str]]:
        query = RecallQuery((Touch(HUB, "open"),), None, limit=limit, scopes=("project",))
        return [(h.memory.id, h.score, h.receipt) for h in recaller.recall(query).hits]

    wide = ranked(COUNT + 1)
    assert ranked(3) == wide[:3]
    assert ranked(6) == wide[:6]
