"""The text channel from kept counts of the word index (a long-lived engine's path).

A long-lived engine keeps each asked term's rows and counts and each met row's lengths, and
scores the word query with FTS5's bm25 formula over them instead of asking FTS5 to score
every match again. These tests hold it to FTS5's own answers on real stores: the same rows,
the same scores to the bit, the same choice among equal scores; and to its costs: counts
read once, statements that do not grow with the words or the matches.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from recall.ranking import text_channel as tc
from recall.ranking import weights as W
from recall.ranking.postings import FTS5_B, FTS5_K1, Postings

from .world import World, ids

PATH = "net/route.c"
WORDS = [
    "route",
    "table",
    "neighbour",
    "cache",
    "flush",
    "timer",
    "device",
    "link",
    "state",
    "netlink",
    "socket",
    "buffer",
    "overflow",
    "counter",
    "reset",
    "parse",
    "option",
    "error",
    "message",
    "address",
    "prefix",
    "length",
    "mask",
    "gateway",
    "metric",
    "lookup",
    "insert",
    "remove",
    "update",
    "refresh",
    "expire",
    "sessions",
    "session",
    "sessionid",
    "parsing",
    "parsed",
    "parser",
]


def _store(world: World, memories: int = 160, seed: int = 7) -> sqlite3.Connection:
    """A store of memories of varied length drawn from WORDS, with exact duplicates (equal
    scores) and long details (lengths far from the mean)."""
    world.history([[PATH], ["net/other.c"]])
    draw = random.Random(seed)
    for n in range(memories):
        summary = " ".join(draw.choices(WORDS, k=draw.randint(2, 8)))
        details = " ".join(draw.choices(WORDS, k=draw.choice((0, 3, 40, 120))))
        world.remember(f"{summary} n{n}", PATH if n % 3 else "net/other.c", details=details)
    for n in range(6):  # equal texts: equal scores, which the choice must break as FTS5 does
        world.remember(f"flush the route cache copy{n}", PATH)
    return world.project.conn


def _queries(seed: int = 3) -> Iterator[list[str]]:
    draw = random.Random(seed)
    yield ["flush", "route", "cache"]
    yield ["sessions", "parsing"]  # stems matched as prefixes over several forms
    yield ["zzyzx", "route"]  # a word no memory holds
    for _ in range(25):
        yield list(dict.fromkeys(draw.sample(WORDS, draw.randint(1, 7))))


@contextmanager
def _traced(conn: sqlite3.Connection) -> Iterator[list[str]]:
    seen: list[str] = []
    conn.set_trace_callback(lambda s: None if s.startswith("--") else seen.append(s))
    try:
        yield seen
    finally:
        conn.set_trace_callback(None)


def _near(conn: sqlite3.Connection) -> set[int]:
    rows = conn.execute(
        "SELECT memory_rowid FROM memory_files WHERE path = ? LIMIT 30", (PATH,)
    ).fetchall()
    return {row[0] for row in rows}


def test_kept_counts_give_fts5s_own_scores_and_choice(world: World) -> None:
    conn = _store(world)
    vocabulary, postings = tc.Vocabulary(conn), Postings(conn)
    near = _near(conn)
    inactive = frozenset(list(near)[:3])
    compared = 0
    for words in _queries():
        expression = tc.fts.prefix_expression(words)
        assert expression is not None
        for limit in (5, 20):
            asked = tc._best_from_fts5(conn, "fts_words", expression, limit, near, inactive)
            kept = tc._best_from_postings(postings, vocabulary, words, limit, near, inactive)
            assert kept == asked, words  # the same rows with the same floats
            compared += len(asked)
    assert compared > 500


def test_the_channel_ranks_the_same_from_kept_counts(world: World) -> None:
    conn = _store(world)
    vocabulary, postings = tc.Vocabulary(conn), Postings(conn)
    near = _near(conn)
    for words in _queries(seed=11):
        plain = tc.text(conn, "fts_words", words, 20, near, (), vocabulary)
        kept = tc.text(conn, "fts_words", words, 20, near, (), vocabulary, postings)
        assert kept == plain, words  # ranks, strengths and magnitudes to the last bit


def test_counts_are_read_once_and_statements_do_not_grow(world: World) -> None:
    conn = _store(world)
    vocabulary, postings = tc.Vocabulary(conn), Postings(conn)
    near = _near(conn)
    few, many = ["flush", "cache"], WORDS[:14]
    for words in (few, many):  # words looked up in the vocabulary first (cached apart)
        tc.text_terms(vocabulary, words, 200)

    with _traced(conn) as first_few:
        tc.text(conn, "fts_words", few, 20, near, (), vocabulary, postings)
    with _traced(conn) as first_many:
        tc.text(conn, "fts_words", many, 20, near, (), vocabulary, postings)
    with _traced(conn) as again:
        tc.text(conn, "fts_words", many, 20, near, (), vocabulary, postings)

    # two words or fourteen, a few matches or most of the store: at most the table of term
    # occurrences made once, the totals, the terms' counts, the rows' lengths
    assert len(first_few) <= 4, first_few
    assert len(first_many) <= 2, first_many
    assert again == []  # everything kept: no statement at all


def test_a_word_the_index_folds_is_left_to_fts5(world: World) -> None:
    world.history([[PATH]])
    accented = world.remember("le café du poller déborde", PATH)
    world.remember("the poller overflows", PATH)
    conn = world.project.conn
    vocabulary, postings = tc.Vocabulary(conn), Postings(conn)

    assert tc._best_from_postings(postings, vocabulary, ["café", "poller"], 10, (), ()) is None
    found = tc.text(conn, "fts_words", ["café", "poller"], 10, (), (), vocabulary, postings)
    plain = tc.text(conn, "fts_words", ["café", "poller"], 10, (), (), vocabulary)

    assert found == plain
    rowid = conn.execute("SELECT rowid FROM memories WHERE id = ?", (accented,)).fetchone()[0]
    assert found[rowid].rank == 1


def test_a_store_past_the_kept_rowids_is_scored_by_fts5(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = _store(world, memories=40)
    monkeypatch.setattr(Postings, "MAX_ROWID", 10)
    vocabulary, postings = tc.Vocabulary(conn), Postings(conn)

    assert tc._best_from_postings(postings, vocabulary, ["route"], 10, (), ()) is None
    plain = tc.text(conn, "fts_words", ["route", "cache"], 10, (), (), vocabulary)
    assert tc.text(conn, "fts_words", ["route", "cache"], 10, (), (), vocabulary, postings) == (
        plain
    )


def test_counts_past_the_limit_are_dropped_and_read_again(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = _store(world, memories=60)
    monkeypatch.setattr(Postings, "LIMIT", 50)
    vocabulary, postings = tc.Vocabulary(conn), Postings(conn)
    terms: set[str] = set()
    for words in _queries(seed=5):
        expression = tc.fts.prefix_expression(words)
        assert expression is not None
        asked = tc._best_from_fts5(conn, "fts_words", expression, 10, (), ())
        assert tc._best_from_postings(postings, vocabulary, words, 10, (), ()) == asked
        terms.update(term for word in words for term, _ in vocabulary.forms(word))
    assert len(postings._terms) < len(terms)  # dropped on the way, and read again when asked


def test_a_long_lived_engine_recalls_as_a_one_query_process(world: World) -> None:
    _store(world)
    world.remember("route cache flush loses the gateway metric", "net/other.c")
    kept = world.recaller()  # long-lived: keeps the counts
    prompts = ["why does flushing the route cache lose the metric", "session parsing error"]
    for prompt in prompts:
        from recall.ranking.query import RecallQuery, Touch

        query = RecallQuery((Touch(PATH, "edit"),), prompt, limit=10)
        once = world.recaller()
        once.short_lived = True
        assert ids(kept.recall(query)) == ids(once.recall(query))


def test_kept_counts_follow_a_write(world: World) -> None:
    _store(world, memories=30)
    recaller = world.recaller()
    from recall.ranking.query import RecallQuery

    query = RecallQuery((), "quokka gateway", limit=5)
    assert recaller.recall(query).hits[0].memory.summary != "quokka in the gateway"
    added = world.remember("quokka in the gateway", "net/other.c")

    assert ids(recaller.recall(query))[0] == added


def test_the_bm25_constants_are_fts5s() -> None:
    # SQLite's fts5_aux.c fixes k1 = 1.2 and b = 0.75; the scores above equal FTS5's only
    # with these, and the per-column rescoring keeps the same scale
    assert (FTS5_K1, FTS5_B) == (1.2, 0.75) == (W.BM25_K1, W.BM25_B)
    assert Postings.LIMIT == 1_000_000
    assert Postings.MAX_ROWID == 8_000_000


def test_rows_deleted_from_the_index_are_not_counted(world: World) -> None:
    conn = _store(world, memories=80)
    # as an edit or a reindex does: the row leaves the word index (FTS5 keeps a delete marker
    # until its segments merge), and a new one comes in
    gone = [row[0] for row in conn.execute("SELECT rowid FROM fts_words LIMIT 25")]
    conn.executemany("DELETE FROM fts_words WHERE rowid = ?", [(r,) for r in gone])
    conn.execute(
        "INSERT INTO fts_words(rowid, summary, details) VALUES (?, ?, ?)",
        (gone[0], "route cache flushed again", "the route cache"),
    )
    vocabulary, postings = tc.Vocabulary(conn), Postings(conn)
    for words in _queries(seed=17):
        expression = tc.fts.prefix_expression(words)
        assert expression is not None
        asked = tc._best_from_fts5(conn, "fts_words", expression, 15, (), ())
        assert tc._best_from_postings(postings, vocabulary, words, 15, (), ()) == asked, words
        assert not set(asked) & set(gone[1:])
