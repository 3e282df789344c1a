"""Text that can tell a touched file's memories apart, and text counted once.

A query word most memories of the touched file hold (the component's name, typically) is
rare in the store but cannot order those memories, so its idf shrinks by the share of them
it matches. A trigram match of words the word channel already matched adds only what it
has over that match.
"""

from __future__ import annotations

import pytest

from recall.ranking import field_bm25 as bm
from recall.ranking import text_channel as tc
from recall.ranking import weights as W
from recall.ranking.channels import Evidence
from recall.ranking.fuse import fuse, receipt

from .world import World, hit_of, ids

PATH = "tc/f_flower.c"
PROMPT = "flower: treat port zero as valid"


def _crowded_file(world: World) -> tuple[str, str]:
    """Four memories on PATH all naming the component; one is about ports. Elsewhere, many
    memories mention ports and none the component, so store-wide the component is rarer."""
    world.history([[PATH], ["tc/other.c"]])
    heavy = world.remember("flower: flower keys for the flower classifier", PATH)
    about_port = world.remember("flower: fix port value truncation", PATH)
    world.remember("flower: add ct state matching", PATH)
    world.remember("flower: document the flower options", PATH)
    for n in range(10):
        world.remember(f"other: port mapping note {n}", "tc/other.c")
    for n in range(20):
        world.remember(f"other: unrelated queue note {n}", "tc/other.c")
    return heavy, about_port


def _rowids(world: World, *memory_ids: str) -> list[int]:
    conn = world.project.conn
    return [
        conn.execute("SELECT rowid FROM memories WHERE id = ?", (m,)).fetchone()[0]
        for m in memory_ids
    ]


def test_a_word_every_file_memory_holds_does_not_order_them(world: World) -> None:
    heavy, about_port = _crowded_file(world)
    conn = world.project.conn
    near = [
        row[0]
        for row in conn.execute(
            "SELECT m.rowid FROM memories m WHERE m.files LIKE ?", (f"%{PATH}%",)
        )
    ]
    assert len(near) == 4
    heavy_row, port_row = _rowids(world, heavy, about_port)
    tokens = ["flower", "port"]

    # as recall asks: every memory of the touched file is scored
    alone = bm.field_bm25(conn, tc.Vocabulary(conn), tokens, near)
    local = bm.field_bm25(conn, tc.Vocabulary(conn), tokens, near, near)

    assert alone is not None and local is not None
    # by store-wide idf alone the component word, repeated, outweighs the one rarer match
    assert alone[heavy_row] > alone[port_row]
    # held by all four memories of the file, it keeps (1 - 4/9)^2 of its weight
    assert local[port_row] > local[heavy_row]
    assert local[heavy_row] == pytest.approx(alone[heavy_row] * W.local_term_weight(4, 4))


def test_recall_puts_the_memory_matching_the_distinctive_word_first(world: World) -> None:
    _heavy, about_port = _crowded_file(world)

    result = world.recall(PATH, prompt=PROMPT)

    assert ids(result)[0] == about_port
    assert "via file" in hit_of(result, about_port).receipt


def test_without_file_memories_the_store_idf_stands(world: World) -> None:
    heavy, about_port = _crowded_file(world)
    conn = world.project.conn
    rows = _rowids(world, heavy, about_port)

    plain = bm.field_bm25(conn, tc.Vocabulary(conn), ["flower", "port"], rows)
    empty_near = bm.field_bm25(conn, tc.Vocabulary(conn), ["flower", "port"], rows, ())

    assert plain == empty_near


def test_trigram_adds_only_what_it_has_over_the_word_match() -> None:
    both, trigram_only = 1, 2
    channels = {
        "words": {both: Evidence(rank=1, magnitude=0.08)},
        "trigram": {
            both: Evidence(rank=1, magnitude=0.05),
            trigram_only: Evidence(rank=2, magnitude=0.04),
        },
    }

    fused = fuse(channels)

    assert fused[both].signals["words"] == pytest.approx(0.08)
    assert (
        fused[both].signals.get("trigram", 0.0) == 0.0
    )  # weaker than the word match: nothing more
    assert fused[trigram_only].signals["trigram"] == pytest.approx(0.04)
    stronger = fuse(
        {
            "words": {both: Evidence(rank=1, magnitude=0.03)},
            "trigram": {both: Evidence(rank=1, magnitude=0.05)},
        }
    )
    assert stronger[both].signals["trigram"] == pytest.approx(0.02)
    # both channels' rank credit still counts, and the receipt still says text
    assert fused[both].signals["trigram_rank"] > 0
    assert receipt(fused[both], pinned=False) == "via text"
