"""The trigram channel from bm25 shares kept per phrase (a long-lived engine's path).

These hold it to FTS5's own answers on a real store: the same rows and the same scores to the
bit for an OR of identifiers, the same choice among equal scores and inactive rows; and to its
cost: a phrase asked again runs no statement, and a changed index is asked anew.
"""

from __future__ import annotations

import random
import sqlite3

from recall.index import fts
from recall.ranking import text_channel as tc
from recall.ranking.phrase_scores import PhraseScores
from recall.ranking.query import RecallQuery, Touch

from .test_recall_cost import traced
from .world import World, hit_of, ids

PATH = "src/device.c"
NAMES = [
    "nm_device_activate",
    "nm-device",
    "ip4_config",
    "ip6_config",
    "libnm-core",
    "route_table",
    "dhcp_client",
    "ipv4",
    "ipv6",
    "stage3_ip",
]


def _store(world: World, memories: int = 120, seed: int = 11) -> sqlite3.Connection:
    """Memories naming identifiers from NAMES in varied counts and lengths, with exact
    duplicates (equal scores)."""
    world.history([[PATH], ["src/other.c"]])
    draw = random.Random(seed)
    for n in range(memories):
        summary = " ".join(draw.choices(NAMES, k=draw.randint(1, 4)))
        details = " ".join(draw.choices([*NAMES, "and", "the", "fix"], k=draw.choice((0, 5, 60))))
        world.remember(f"{summary} n{n}", PATH if n % 3 else "src/other.c", details=details)
    for n in range(6):
        world.remember(f"nm_device_activate copy{n}", PATH)
    return world.project.conn


def _queries(seed: int = 5) -> list[list[str]]:
    draw = random.Random(seed)
    asked = [["nm_device_activate"], ["ipv4", "ipv4"], ["libnm-core", "zz_nowhere"]]
    asked += [draw.sample(NAMES, draw.randint(1, 5)) for _ in range(25)]
    return asked


def test_kept_shares_give_fts5s_own_scores_and_choice(world: World) -> None:
    conn = _store(world)
    near = {
        row[0]
        for row in conn.execute(
            "SELECT memory_rowid FROM memory_files WHERE path = ? LIMIT 40", (PATH,)
        )
    }
    inactive = frozenset(list(near)[:3])
    phrases = PhraseScores(conn)
    compared = 0
    for tokens in _queries():
        expression = fts.match_expression(tokens, "OR")
        assert expression is not None
        for limit in (3, 20):
            asked = tc._best_from_fts5(conn, "fts_trigram", expression, limit, near, inactive)
            kept = phrases.best(tokens, limit, near, inactive)
            assert kept == asked, tokens  # the same rows with the same floats
            compared += len(asked)
    assert compared > 500


def test_a_phrase_asked_again_runs_no_statement(world: World) -> None:
    conn = _store(world)
    phrases = PhraseScores(conn)
    first = phrases.best(["ip4_config", "libnm-core"], 10, (), ())
    before = phrases.statements
    with traced(conn) as statements:
        again = phrases.best(["libnm-core", "ip4_config"], 10, (), ())
    assert statements == [] and phrases.statements == before == 2
    assert again.keys() == first.keys()


def test_a_long_lived_engine_asks_the_trigram_index_once_per_phrase(world: World) -> None:
    _store(world)
    recaller = world.recaller()
    query = RecallQuery(
        (Touch(PATH, "edit"),), "why does nm_device_activate stall", scopes=("project",)
    )
    first = recaller.recall(query)
    with traced(world.project.conn) as statements:
        again = recaller.recall(query)
    assert ids(again) == ids(first)
    assert not [s for s in statements if "fts_trigram" in s], statements


def test_a_memory_written_since_is_found_by_a_kept_phrase(world: World) -> None:
    _store(world, memories=30)
    recaller = world.recaller()
    query = RecallQuery((), "what about dhcp_lease_renewal_timer", scopes=("project",))
    recaller.recall(query)  # the phrase is asked and kept: it matches nothing yet
    written = world.remember("dhcp_lease_renewal_timer fires twice", "src/other.c")
    found = recaller.recall(query)
    assert written in ids(found)
    assert any("trigram" in name for name in hit_of(found, written).signals)


def test_shares_dropped_past_the_limit_are_asked_again_alike(world: World) -> None:
    conn = _store(world, memories=60)
    phrases = PhraseScores(conn)
    phrases.LIMIT = 5  # type: ignore[misc]  # refilled at almost every phrase
    for tokens in _queries()[:10]:
        expression = fts.match_expression(tokens, "OR")
        assert expression is not None
        asked = tc._best_from_fts5(conn, "fts_trigram", expression, 10, (), ())
        assert phrases.best(tokens, 10, (), ()) == asked, tokens
    assert phrases._held <= phrases.LIMIT + max(len(s) + 1 for s in phrases._kept.values())
