"""A file's oldest memory, text scored column by column, and the word counts behind both.

Origin: among the memories naming a touched file, the one written first gets
``ORIGIN_BONUS`` on its file magnitude, unless they were all written at once. Fields: the
word channel scores the summary and the details each against its own mean length (BM25F),
so a long explanation no longer discounts a match in its summary.
"""

from __future__ import annotations

import math

import pytest

from recall.index import fts
from recall.ranking import field_bm25 as bm
from recall.ranking import text_channel as tc
from recall.ranking import weights as W

from .world import World, hit_of, ids, newest_bonus, quiet_origin

PATH = "src/net/poller.c"


def test_the_oldest_memory_on_a_file_leads_when_nothing_else_differs(world: World) -> None:
    world.history([[PATH, "src/net/other.c"]])
    latest = "2026-05-20T00:00:00+00:00"  # recent: a quiet file's newest bonus fades
    newest = world.remember("poller: note three", PATH, created=latest)
    middle = world.remember("poller: note two", PATH, created="2026-03-10T00:00:00+00:00")
    oldest = world.remember("poller: note one", PATH, created="2026-01-10T00:00:00+00:00")

    result = world.recall(PATH)

    assert ids(result)[:3] == [oldest, newest, middle]
    first, recent = hit_of(result, oldest), hit_of(result, newest)
    # the oldest's file magnitude carries the origin bonus; the newest ones the newest bonus,
    # by how many were written after them (W.file_newest_bonus)
    plain = W.file_affinity(3)
    assert recent.signals["file"] == pytest.approx(plain + newest_bonus(0, latest))
    assert hit_of(result, middle).signals["file"] == pytest.approx(plain + newest_bonus(1, latest))
    origin = quiet_origin(latest)  # from the file's newest memory
    assert first.signals["file"] == pytest.approx(plain + origin + newest_bonus(2, latest))


def test_no_origin_when_every_memory_was_written_at_once(world: World) -> None:
    world.history([[PATH]])
    made = world.crowd(PATH, 4, topic="poller note")

    result = world.recall(PATH)

    magnitudes = {hit_of(result, memory_id).signals["file"] for memory_id in made}
    assert len(magnitudes) == 1


def test_a_lone_memory_gets_no_origin_bonus(world: World) -> None:
    world.history([[PATH]])
    only = world.remember("poller: the only note", PATH)

    hit = hit_of(world.recall(PATH), only)

    assert hit.signals["file"] == pytest.approx(W.file_affinity(1) + newest_bonus(0))


def test_an_open_file_gives_the_origin_bonus_scaled_like_its_affinity(world: World) -> None:
    world.history([[PATH]])
    latest = "2026-05-20T00:00:00+00:00"
    world.remember("poller: later", PATH, created=latest)
    oldest = world.remember("poller: first", PATH, created="2026-01-10T00:00:00+00:00")

    opened = hit_of(world.recall(opens=[PATH]), oldest).signals["file"]
    edited = hit_of(world.recall(PATH), oldest).signals["file"]

    weight = W.touch_weight("open")
    bonus = quiet_origin(latest) + newest_bonus(1, latest)
    assert opened == pytest.approx(W.file_affinity(2, "open") + bonus * weight)
    assert edited == pytest.approx(W.file_affinity(2, "edit") + bonus)


LONG_DETAILS = " ".join(f"unrelated{n} words about something else" for n in range(60))


def test_a_long_explanation_does_not_discount_its_summary_match(world: World) -> None:
    world.history([[PATH]])
    terse = world.remember("poller drops wakeups on timeout", PATH)
    explained = world.remember("poller drops wakeups on timeout", PATH, details=LONG_DETAILS)
    conn = world.project.conn
    rowid = {
        memory_id: conn.execute("SELECT rowid FROM memories WHERE id = ?", (memory_id,)).fetchone()[
            0
        ]
        for memory_id in (terse, explained)
    }

    strengths = bm.field_bm25(conn, tc.Vocabulary(conn), ["wakeups"], list(rowid.values()))

    assert strengths is not None
    assert strengths[rowid[terse]] == pytest.approx(strengths[rowid[explained]])
    # FTS5's own bm25 divides by the whole row's length, and would rank the terse one first
    fts_rank = dict(
        conn.execute(
            "SELECT rowid, bm25(fts_words) FROM fts_words WHERE fts_words MATCH 'wakeups'"
        ).fetchall()
    )
    assert fts_rank[rowid[terse]] < fts_rank[rowid[explained]]  # more negative: better


def test_details_matches_count_against_the_details_length(world: World) -> None:
    world.history([[PATH]])
    short = world.remember("poller note", PATH, details="the wakeups race")
    long = world.remember("poller other note", PATH, details=f"the wakeups race {LONG_DETAILS}")
    conn = world.project.conn
    rowids = {
        m: conn.execute("SELECT rowid FROM memories WHERE id = ?", (m,)).fetchone()[0]
        for m in (short, long)
    }

    strengths = bm.field_bm25(conn, tc.Vocabulary(conn), ["wakeups"], list(rowids.values()))

    assert strengths is not None
    assert strengths[rowids[short]] > strengths[rowids[long]] > 0


def test_column_means_read_from_fts5_match_a_count_by_hand(world: World) -> None:
    world.history([[PATH]])
    texts = [
        ("poller drops wakeups", "the timer races the poll loop"),
        ("session cache", ""),
        ("retry budget of five", "see the discussion in review"),
    ]
    for summary, details in texts:
        world.remember(summary, PATH, details=details or None)
    conn = world.project.conn

    means = bm._column_means(conn)

    indexed = conn.execute("SELECT summary, details FROM fts_words").fetchall()
    rows = len(indexed)
    summary_tokens = sum(len(fts.WORD.findall(s.lower())) for s, _ in indexed)
    details_tokens = sum(len(fts.WORD.findall((d or "").lower())) for _, d in indexed)
    assert means == (rows, summary_tokens / rows, details_tokens / rows)


def test_vocabulary_counts_a_stem_across_its_forms_and_remembers(world: World) -> None:
    world.history([[PATH]])
    world.remember("sessions expire", PATH)
    world.remember("session cookie", PATH)
    world.remember("the sessionid header", PATH)
    conn = world.project.conn
    vocabulary = tc.Vocabulary(conn)

    forms = dict(vocabulary.forms("sessions"))

    assert forms == {"session": 1, "sessionid": 1, "sessions": 1}
    assert vocabulary.documents_with("sessions") == 3
    assert vocabulary.documents_with("cookie") == 1  # 6 letters: its own prefix
    assert vocabulary.documents_with("the") == 1  # short: matched exactly
    calls: list[str] = []  # the vocabulary asks nothing twice
    conn.set_trace_callback(calls.append)
    try:
        vocabulary.forms("sessions")
    finally:
        conn.set_trace_callback(None)
    assert calls == []


def test_idf_is_fts5s(world: World) -> None:
    world.history([[PATH]])
    for n in range(5):
        world.remember(f"note {n} about caching", PATH)
    world.remember("wakeups are lost", PATH)
    conn = world.project.conn
    rowid = conn.execute("SELECT rowid FROM fts_words WHERE summary LIKE 'wakeups%'").fetchone()[0]

    strength = bm.field_bm25(conn, tc.Vocabulary(conn), ["wakeups"], [rowid])

    total, having = 6, 1
    idf = math.log((total - having + 0.5) / (having + 0.5))
    assert strength is not None
    # summary "wakeups are lost": 3 tokens against a mean of 23 / 6 (no details anywhere)
    tf = 1.0 / (1 - W.BM25_B + W.BM25_B * (3 / (23 / 6)))
    assert strength[rowid] == pytest.approx(idf * tf * (W.BM25_K1 + 1) / (W.BM25_K1 + tf))


def test_accented_words_are_scored_as_the_index_folds_them(world: World) -> None:
    world.history([[PATH, "src/other.c"]])
    accented = world.remember("Le café crème du poller déborde", PATH)
    world.remember("unrelated note on the other file", "src/other.c")

    result = world.recall(prompt="pourquoi le cafe deborde?")

    hit = hit_of(result, accented)
    assert hit.signals.get("words", 0.0) > 0  # matched and scored, not dropped by rescoring
    conn = world.project.conn
    assert tc.Vocabulary(conn).documents_with("Café") == 1


def test_the_origin_is_the_earliest_moment_whatever_the_offset(world: World) -> None:
    world.history([[PATH]])
    # 08:00 at +05:00 is 03:00 UTC: earlier than 04:00 UTC, though it sorts later as text
    east = world.remember("poller: written in the east", PATH, created="2025-01-10T08:00:00+05:00")
    world.remember("poller: written in utc", PATH, created="2025-01-10T04:00:00+00:00")

    result = world.recall(PATH)

    assert ids(result)[0] == east


def test_the_same_moment_written_two_ways_is_no_origin(world: World) -> None:
    world.history([[PATH]])
    a = world.remember("poller: one", PATH, created="2025-01-10T04:00:00Z")
    b = world.remember("poller: two", PATH, created="2025-01-10T04:00:00+00:00")

    result = world.recall(PATH)

    assert hit_of(result, a).signals["file"] == pytest.approx(hit_of(result, b).signals["file"])
