"""What one recall costs, counted rather than timed: SQL statements, rows decoded, writes.

The statements a recall runs are read through SQLite's own trace hook on the store's real
connection (expanded SQL, bound values included).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from recall.anchors.write import record_anchors
from recall.genome import Genome
from recall.lifecycle.references import CONFIRMED_KEY
from recall.ranking.drift_counts import DriftCounts
from recall.ranking.engine import Recaller
from recall.ranking.query import RecallQuery, Touch
from recall.ranking.vector_blobs import pack
from recall.ranking.vector_cache import cache_paths, cache_stamp, vectors_complete
from recall.ranking.vectors import memory_text
from recall.ranking.weights import DRIFT_COMMITS

from .world import World

_WHOLE_ROWS = re.compile(
    r"SELECT \* FROM memories WHERE rowid IN \(SELECT value FROM json_each\('(\[[^']*\])'\)\)"
)


@contextmanager
def traced(conn: sqlite3.Connection) -> Iterator[list[str]]:
    """Every statement ``conn`` is asked to run inside the block (not the ones SQLite runs
    inside them, which its trace marks with a leading "--")."""
    seen: list[str] = []

    def note(statement: str) -> None:
        if not statement.startswith("--"):
            seen.append(statement)

    conn.set_trace_callback(note)
    try:
        yield seen
    finally:
        conn.set_trace_callback(None)


def _crowded_world(world: World) -> None:
    """Two files, one named by 30 memories and one by 1,000; every tenth mentions overflow."""
    world.history([["src/small.c"], ["src/hub.c"]])
    for path, count in (("src/small.c", 30), ("src/hub.c", 1000)):
        store = world.project
        drafts = [
            (
                store.prepare_memory(
                    summary=f"{path} note {n}",
                    category="context",
                    files=[path],
                    details="the ring buffer overflow" if n % 10 == 0 else f"step {n} of the plan",
                ),
                None,
            )
            for n in range(count)
        ]
        store.import_many(drafts)


def _query(path: str, limit: int = 5) -> RecallQuery:
    return RecallQuery((Touch(path, "edit"),), "why the overflow", limit=limit, scopes=("project",))


def test_statements_per_recall_do_not_grow_with_the_candidates(world: World) -> None:
    _crowded_world(world)
    recaller = world.recaller()
    small, hub = _query("src/small.c"), _query("src/hub.c")
    recaller.recall(small)  # the first recall reads what is kept between recalls
    recaller.recall(hub)
    conn = world.project.conn
    with traced(conn) as on_small:
        found_small = recaller.recall(small)
    with traced(conn) as on_hub:
        found_hub = recaller.recall(hub)
    assert len(found_small.hits) == len(found_hub.hits) == 5
    assert all("src/hub.c" in hit.memory.files for hit in found_hub.hits)
    # 30 candidates or 1,000 (over SQLite's bound-variable limit): the same statements, and
    # at most one more round of candidate facts (two statements) for the crowded file
    assert len(on_small) <= len(on_hub) <= len(on_small) + 2, (on_small, on_hub)


def test_only_the_returned_memories_are_read_whole(world: World) -> None:
    _crowded_world(world)
    query = _query("src/hub.c", limit=3)
    world.recaller().recall(query)  # the vectors are read once, by any engine
    # a new engine: the candidates' facts are read by this recall (a long-lived one keeps them)
    with traced(world.project.conn) as statements:
        result = world.recaller().recall(query)
    read = [json.loads(m.group(1)) for s in statements for m in [_WHOLE_ROWS.search(s)] if m]
    assert len(read) == 1, statements
    assert len(read[0]) == len(result.hits) == 3
    # no other statement reads whole rows of memories or their stored file lists (JSON)
    others = [s for s in statements if "FROM memories" in s and not _WHOLE_ROWS.search(s)]
    assert others
    assert not [
        s for s in others if re.search(r"(?<!count\()\*|\bm?\.?files\b", s.split("FROM")[0])
    ]


def test_the_returned_hits_rank_as_every_candidate_scored(world: World) -> None:
    _crowded_world(world)
    recaller = world.recaller()
    wide = recaller.recall(_query("src/hub.c", limit=1000))
    narrow = recaller.recall(_query("src/hub.c", limit=4))
    assert [h.memory.id for h in narrow.hits] == [h.memory.id for h in wide.hits[:4]]
    assert [h.score for h in narrow.hits] == [h.score for h in wide.hits[:4]]
    assert [h.receipt for h in narrow.hits] == [h.receipt for h in wide.hits[:4]]


def test_a_confirmation_clears_the_spot_check_in_a_long_lived_engine(world: World) -> None:
    world.commit("src/busy.c", message="add busy")
    memory_id = world.remember(
        "the busy file keeps a ring", "src/busy.c", created="2023-12-01T00:00:00+00:00"
    )
    world.history([["src/busy.c"]] * DRIFT_COMMITS)
    recaller = world.recaller()
    query = RecallQuery((Touch("src/busy.c", "edit"),), None, scopes=("project",))
    first = recaller.recall(query).hits[0]
    assert first.memory.id == memory_id and first.drift == DRIFT_COMMITS + 1  # and its first
    assert recaller.recall(query).hits[0].drift == DRIFT_COMMITS + 1  # asked again: kept
    world.project.update_fields(memory_id, {CONFIRMED_KEY: "2026-05-31T00:00:00+00:00"})
    again = recaller.recall(query).hits[0]
    assert again.memory.id == memory_id and again.drift == 0
    assert "spot-check" not in again.receipt


_COMMIT_TIMES = re.compile(
    r"SELECT seq, ts FROM genome_commits(?: WHERE .*json_each\('(\[[^']*\])'\))?"
)


def _busy_world(world: World) -> tuple[str, RecallQuery]:
    """Ten commits of other files, then the shown memory's file changed past the drift limit."""
    world.history([[f"src/other{n}.c"] for n in range(10)])
    world.commit("src/busy.c", message="add busy")
    memory_id = world.remember(
        "the busy file keeps a ring", "src/busy.c", created="2023-12-01T00:00:00+00:00"
    )
    world.history([["src/busy.c"]] * DRIFT_COMMITS)
    return memory_id, RecallQuery((Touch("src/busy.c", "edit"),), None, scopes=("project",))


def test_the_spot_check_reads_the_packed_commit_times_not_the_commits(world: World) -> None:
    memory_id, query = _busy_world(world)
    recaller = world.recaller()  # a new engine over a new genome: nothing kept yet
    with traced(world.project.conn) as statements:
        [hit] = recaller.recall(query).hits
    assert hit.memory.id == memory_id and hit.drift == DRIFT_COMMITS + 1
    assert not [s for s in statements if _COMMIT_TIMES.search(s)], statements
    assert len([s for s in statements if "FROM genome_times" in s]) == 1, statements


def test_without_packed_times_the_spot_check_reads_the_shown_files_commits_only(
    world: World,
) -> None:
    memory_id, query = _busy_world(world)
    world.recaller().recall(query)  # the genome indexed
    world.project.conn.execute("DROP TABLE genome_times")  # as an older version left it
    world.project.conn.commit()
    recaller = world.recaller()
    with traced(world.project.conn) as statements:
        [hit] = recaller.recall(query).hits
    assert hit.memory.id == memory_id and hit.drift == DRIFT_COMMITS + 1
    asked = [m for s in statements if (m := _COMMIT_TIMES.search(s))]
    assert len(asked) == 1, statements
    # the file's own commits, not every commit of the history (ten more)
    assert asked[0].group(1) is not None, asked[0].group(0)
    assert len(json.loads(asked[0].group(1))) == DRIFT_COMMITS + 1


def _vector_writes(statements: list[str]) -> list[str]:
    return [
        s
        for s in statements
        if re.match(r"\s*(INSERT|UPDATE|DELETE|REPLACE)", s, re.I)
        and ("vectors" in s or "vectors_complete" in s)
    ]


def test_writes_make_the_vectors_and_recall_writes_none(world: World) -> None:
    first = world.remember("the scheduler retry loop drops jobs", "src/queue.c")
    second = world.remember("timeouts in the scheduler queue", "src/queue.c")
    conn = world.project.conn
    made = dict(conn.execute("SELECT memory_rowid, model FROM vectors").fetchall())
    assert len(made) == 2  # written with the memories, not at the first recall
    query = RecallQuery((), "why does the scheduler retry drop jobs", scopes=("project",))
    before = {
        h.memory.id: h.signals.get("semantic_rank") for h in world.recaller().recall(query).hits
    }
    assert before[first] and before[second]
    # an index from before vectors were made at write time: one memory lacks its vector
    conn.execute("DELETE FROM vectors WHERE memory_rowid = (SELECT min(memory_rowid) FROM vectors)")
    conn.execute("DELETE FROM meta WHERE key = 'vectors_complete'")
    with traced(conn) as statements:
        after = world.recaller().recall(query)
    assert not _vector_writes(statements), _vector_writes(statements)
    assert {h.memory.id: h.signals.get("semantic_rank") for h in after.hits} == before
    assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 1
    world.remember("an unrelated build note", "Makefile")  # the next write fills them in
    assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 3


def test_vectors_of_another_model_are_rebuilt_by_the_next_write(world: World) -> None:
    for n in range(3):
        world.remember(f"ring buffer note {n}", "src/ring.c")
    store = world.project
    store.conn.execute("UPDATE vectors SET model = 'an-older-model'")
    world.remember("a fourth note", "src/ring.c")
    models = {m for (m,) in store.conn.execute("SELECT model FROM vectors")}
    assert models == {world.recaller().embedder.name}
    assert store.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 4


def test_an_import_stores_its_vectors_in_the_transaction_of_its_rows(world: World) -> None:
    world.remember("a note written before the import", "src/ring.c")
    store = world.project
    drafts = [
        (
            store.prepare_memory(summary=f"imported ring note {n}", category="gotcha", files=[f]),
            None,
        )
        for n, f in enumerate(["src/ring.c", "src/a.c", "src/b.c"])
    ]
    heard: list[tuple[str, int, int | None]] = []
    with traced(store.conn) as statements:
        store.import_many(drafts, lambda label, done, total: heard.append((label, done, total)))
    rows_at = next(n for n, s in enumerate(statements) if "INSERT INTO memories(" in s)
    begin = max(n for n, s in enumerate(statements[:rows_at]) if s.startswith("BEGIN"))
    commit = statements.index("COMMIT", rows_at)
    assert any("INTO vectors" in s for s in statements[begin:commit])  # one transaction
    assert not any("INTO vectors" in s for s in statements[commit:])  # nothing left to fill in
    assert heard[0] == ("writing memory files", 0, 3)  # the bar moves from the first file
    assert ("writing memory files", 3, 3) in heard and ("computing vectors", 3, 3) in heard
    # the same vectors the back-fill makes from the stored rows, and the index says complete
    embedder = world.recaller().embedder
    stored = store.conn.execute(
        "SELECT m.summary, m.details, m.files, v.vec, v.model FROM memories m "
        "JOIN vectors v ON v.memory_rowid = m.rowid"
    ).fetchall()
    assert len(stored) == 4 and {row[4] for row in stored} == {embedder.name}
    for summary, details, files, vec, _model in stored:
        expected = embedder.embed_many([memory_text(summary, details, files)])[0]
        assert vec == pack(expected)
    assert vectors_complete(store.conn, embedder.name)
    cache = store.location.base / "cache"
    stamp = cache_stamp(store.conn, embedder.name, embedder.dim)
    assert all(path.exists() for path in cache_paths(cache, stamp))


def test_an_import_into_an_index_of_another_model_rebuilds_the_others(world: World) -> None:
    for n in range(2):
        world.remember(f"ring buffer note {n}", "src/ring.c")
    store = world.project
    store.conn.execute("UPDATE vectors SET model = 'an-older-model'")
    store.import_many(
        [(store.prepare_memory(summary="an imported note", category="gotcha", files=[]), None)]
    )
    models = [m for (m,) in store.conn.execute("SELECT model FROM vectors")]
    assert models == [world.recaller().embedder.name] * 3
    assert vectors_complete(store.conn, world.recaller().embedder.name)


def test_a_reindex_makes_the_vectors_with_progress(world: World) -> None:
    for n in range(3):
        world.remember(f"ring buffer note {n}", "src/ring.c")
    heard: list[tuple[str, int, int | None]] = []
    world.project.reindex(lambda label, done, total: heard.append((label, done, total)))
    assert world.project.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 3
    assert heard and heard[-1][1:] == (3, 3)


def _scrambled(world: World) -> Recaller:
    """Twelve gotchas on src/a.c written in the reverse of their file names' order, so that a
    rebuild (which reads the folder in name order) gives every one another rowid; and a warm
    engine over them."""
    world.history([["src/a.c"]])
    store = world.project
    wanted = [f"ff0000{n:02x}" for n in range(12, 0, -1)]
    drafts = [
        (store.prepare_memory(summary=f"a.c note {n}", category="gotcha", files=["src/a.c"]), i)
        for n, i in enumerate(wanted)
    ]
    store.import_many(drafts)
    recaller = world.recaller()
    recaller.recall(_REPLACED_QUERY)  # warm: facts and vectors read through this connection
    return recaller


_REPLACED_QUERY = RecallQuery((Touch("src/a.c", "edit"),), "note", limit=5)


def test_a_recall_that_sees_its_index_replaced_answers_from_the_new_one(tmp_path: Path) -> None:
    """Another process's reindex swaps the index file in the middle of a recall (fired from
    SQLite's trace hook, at each statement of the recall in turn): rowids are assigned anew,
    so a recall that went on would read the old file's rowids in the new file. It is done
    again on the new file instead, and answers as a recall made after the reindex does."""
    from recall.store import MemoryStore

    counting = World(tmp_path / "count")
    warm = _scrambled(counting)
    with traced(counting.project.conn) as statements:
        warm.recall(_REPLACED_QUERY)
    counting.close()
    assert len(statements) > 2

    for at in range(len(statements)):
        world = World(tmp_path / f"at-{at}")
        recaller = _scrambled(world)
        store = world.project
        other = MemoryStore(store.location)
        seen: list[str] = []

        def reindex_at(
            statement: str, at: int = at, other: MemoryStore = other, seen: list[str] = seen
        ) -> None:
            if not statement.startswith("--"):
                seen.append(statement)
                if len(seen) == at + 1:
                    other.reindex()

        conn = store.conn
        before = [row[0] for row in conn.execute("SELECT rowid FROM memories ORDER BY id")]
        seen.clear()
        conn.set_trace_callback(reindex_at)
        try:
            during = recaller.recall(_REPLACED_QUERY)
        finally:
            conn.set_trace_callback(None)
            other.close()
        after = [row[0] for row in store.conn.execute("SELECT rowid FROM memories ORDER BY id")]
        assert after != before, at  # the swap did reassign rowids
        fresh = world.recaller().recall(_REPLACED_QUERY)
        assert [(h.memory.id, h.score) for h in during.hits] == [
            (h.memory.id, h.score) for h in fresh.hits
        ], at
        world.close()


def test_a_long_lived_engine_follows_writes_to_the_files_it_kept(world: World) -> None:
    world.history([["src/ring.c"]])
    first = world.remember("ring buffer wraps at the end", "src/ring.c")
    second = world.remember("ring buffer needs its lock", "src/ring.c")
    recaller = world.recaller()
    query = RecallQuery((Touch("src/ring.c", "edit"),), None, scopes=("project",))
    assert {h.memory.id for h in recaller.recall(query).hits} == {first, second}
    third = world.remember("ring buffer size is a power of two", "src/ring.c")
    world.project.update_fields(second, {"pinned": True})
    world.project.set_status(first, "archived", allowed_from=("active",))
    hits = recaller.recall(query).hits
    assert [h.memory.id for h in hits] == [second, third]  # the new pin first, the archived gone
    assert hits[0].signals.get("pinned") and hits[0].memory.pinned


def test_a_used_or_pinned_memory_deep_in_a_crowd_ranks_as_if_every_candidate_were_scored(
    world: World,
) -> None:
    from recall.policy.usage import record_action

    world.history([["src/hub.c"]])
    crowd = [
        world.remember(f"hub note {n}", "src/hub.c", created=f"2019-01-{1 + n % 28:02d}T00:00:00Z")
        for n in range(150)
    ]
    acted, pinned = crowd[-1], crowd[-2]
    for _ in range(3):
        record_action(world.project.conn, acted, when="2026-05-30T00:00:00+00:00")
    world.project.update_fields(pinned, {"pinned": True})
    recaller = world.recaller()
    query = RecallQuery((Touch("src/hub.c", "edit"),), None, limit=3, scopes=("project",))
    wide = recaller.recall(RecallQuery(query.touches, None, limit=200, scopes=("project",)))
    narrow = recaller.recall(query)
    assert [h.memory.id for h in narrow.hits] == [h.memory.id for h in wide.hits[:3]]
    assert [h.score for h in narrow.hits] == [h.score for h in wide.hits[:3]]
    assert {acted, pinned} <= {h.memory.id for h in narrow.hits}


def _c_file(*names: str) -> str:
    return "".join(
        f"int {name}(int arg)\n{{\n    return {n};\n}}\n\n" for n, name in enumerate(names)
    )


_MOVES = re.compile(r"\b(genome_symbols|genome_symbol_files|genome_renames|memory_anchors)\b")


def test_a_second_recall_of_a_file_asks_the_genome_nothing_for_moved_symbols(
    world: World,
) -> None:
    files = {f"src/m{n}.c": _c_file("main", f"step{n}") for n in range(8)}
    files["src/a.c"] = _c_file("main", "helper")
    files["src/b.c"] = _c_file("main", "other")
    for path, text in files.items():
        world.repo.write(path, text)
    world.repo.commit("start")
    store = world.project
    for path in sorted(files):  # every file's main is anchored: each is a candidate of src/b.c
        draft = store.prepare_memory(summary=f"{path} main sets up", category="gotcha", files=[])
        anchors, _ = record_anchors(world.root, [(path, "main")])
        store.remember(draft.with_changes(anchors=anchors))
    draft = store.prepare_memory(summary="helper holds the lock", category="gotcha", files=[])
    anchors, _ = record_anchors(world.root, [("src/a.c", "helper")])
    moved = store.remember(draft.with_changes(anchors=anchors)).id
    world.repo.write("src/a.c", _c_file("main"))
    # helper keeps its body (a move, not a rewrite: its old file is still there)
    world.repo.write("src/b.c", _c_file("main", "helper") + "int other(void)\n{\n}\n")
    world.repo.commit("move helper")
    recaller = world.recaller()
    query = RecallQuery((Touch("src/b.c", "edit"),), None, scopes=("project",))
    with traced(store.conn) as first:
        found = recaller.recall(query)
    assert [h.memory.id for h in found.hits] == [moved]
    assert "helper, moved from src/a.c" in found.hits[0].receipt
    assert [s for s in first if _MOVES.search(s)]  # the first recall reads the moves
    with traced(store.conn) as second:
        again = recaller.recall(query)
    assert [(h.memory.id, h.receipt, h.score) for h in again.hits] == [
        (h.memory.id, h.receipt, h.score) for h in found.hits
    ]
    assert not [s for s in second if _MOVES.search(s)], second
    assert not [s for s in second if "genome_state" in s], second


def test_a_store_without_anchors_asks_once_per_index_state(world: World) -> None:
    world.repo.write("src/b.c", _c_file("main"))
    world.repo.commit("start")
    world.remember("main sets up the pool", "src/b.c")
    recaller = world.recaller()
    query = RecallQuery((Touch("src/b.c", "edit"),), None, scopes=("project",))
    with traced(world.project.conn) as first:
        assert len(recaller.recall(query).hits) == 1
    assert len([s for s in first if "memory_anchors" in s]) == 1  # any anchor at all?
    with traced(world.project.conn) as second:
        recaller.recall(query)
    assert not [s for s in second if "memory_anchors" in s], second


def _drifted_world(world: World) -> tuple[str, str]:
    """A memory of a file changed past the drift limit since, beside one of a quiet file."""
    world.history([["src/busy.c", "src/quiet.c"]])
    busy = world.remember(
        "the busy file keeps a ring", "src/busy.c", created="2023-12-01T00:00:00+00:00"
    )
    quiet = world.remember(
        "the quiet file keeps a ring", "src/quiet.c", created="2023-12-01T00:00:00+00:00"
    )
    world.history([["src/busy.c"]] * DRIFT_COMMITS)
    return busy, quiet


def test_the_spot_check_of_hits_shown_again_runs_no_statement(world: World) -> None:
    busy, quiet = _drifted_world(world)
    recaller = world.recaller()
    query = RecallQuery(
        (Touch("src/busy.c", "edit"), Touch("src/quiet.c", "edit")), None, scopes=("project",)
    )
    recaller.recall(query)
    with traced(world.project.conn) as statements:
        hits = {hit.memory.id: hit for hit in recaller.recall(query).hits}
    assert hits[busy].drift == DRIFT_COMMITS + 1 and hits[quiet].drift == 0
    # the same genome state: its counts and the drifted memory's file are known already
    counting = re.compile(r"genome_commits|SELECT path, id FROM genome_files|\bseqs\b")
    assert not [s for s in statements if counting.search(s)], statements
    assert not [s for s in statements if re.search(r"SELECT name FROM memories", s)], statements


def test_kept_drift_counts_follow_a_genome_refresh(world: World) -> None:
    busy, quiet = _drifted_world(world)
    recaller = world.recaller()
    query = RecallQuery((Touch("src/quiet.c", "edit"),), None, scopes=("project",))
    [hit] = [h for h in recaller.recall(query).hits if h.memory.id == quiet]
    assert hit.drift == 0
    world.history([["src/quiet.c"]] * DRIFT_COMMITS)  # HEAD moves: the quiet file drifts too
    recaller.repo.refresh()  # type: ignore[attr-defined]
    [hit] = [h for h in recaller.recall(query).hits if h.memory.id == quiet]
    assert hit.drift == DRIFT_COMMITS + 1
    assert busy  # untouched by this query


def test_kept_drift_counts_are_not_mixed_with_a_state_a_count_took(world: World) -> None:
    """Counts kept from one state of the genome, then another process refreshes it: a count
    of another file takes the new state, and the kept counts go with the old one."""
    world.history([["src/a.c"], ["src/b.c"]])
    world.remember("a.c and b.c share a buffer", "src/a.c", "src/b.c")  # the index on disk
    genome = world.genome()
    kept = DriftCounts()
    a, b = ("src/a.c", "2000-01-01"), ("src/b.c", "2000-01-01")
    assert kept.counts(genome, [a]) == {a: 1}
    world.history([["src/a.c"]] * 3)
    elsewhere = sqlite3.connect(world.project.location.base / "index.db")  # a hook, the CLI
    try:
        assert Genome.load(world.root, elsewhere).last_summary is not None  # refreshed there
    finally:
        elsewhere.close()
    # (the pairs as an iterator: they are read again once the kept counts are dropped)
    assert kept.counts(genome, iter([a, b])) == {a: 4, b: 1}


class _SmallDriftCounts(DriftCounts):
    LIMIT = 2  # type: ignore[misc]


def test_kept_drift_counts_dropped_at_their_limit_answer_every_pair_asked(world: World) -> None:
    """Past the limit the kept counts are dropped and refilled: the pairs of the same question
    that had been kept are asked again with the others, not left out (a pair left out is
    asked alone, a statement each)."""
    world.history([["src/a.c"], ["src/b.c"], ["src/c.c"]])
    world.remember("a.c, b.c and c.c share a buffer", "src/a.c", "src/b.c", "src/c.c")
    genome = world.genome()
    kept = _SmallDriftCounts()
    a, b, c = (("src/a.c", "2000-01-01"), ("src/b.c", "2000-01-01"), ("src/c.c", "2000-01-01"))
    assert dict(kept.counts(genome, [a]) or {}) == {a: 1}
    assert dict(kept.counts(genome, [a, b, c]) or {}) == {a: 1, b: 1, c: 1}
    assert kept.asked == 4


def test_the_drifted_hits_files_are_named_in_one_statement(world: World) -> None:
    world.history([["src/busy.c"]])
    drifted = [
        world.remember(f"the busy file keeps ring {n}", "src/busy.c", created="2023-12-01")
        for n in range(4)
    ]
    world.history([["src/busy.c"]] * DRIFT_COMMITS)
    query = RecallQuery((Touch("src/busy.c", "edit"),), None, scopes=("project",))
    with traced(world.project.conn) as statements:
        hits = world.recaller().recall(query).hits
    assert sorted(h.memory.id for h in hits if h.drift) == sorted(drifted)
    named = [s for s in statements if re.search(r"SELECT (id, )?name FROM memories", s)]
    assert len(named) == 1, named


def test_a_files_identity_is_asked_of_the_genome_once(world: World) -> None:
    world.history([["src/busy.c"]] * 3)
    genome = world.genome()
    first = genome.commits_touching_many([("src/busy.c", "2000-01-01")])
    with traced(world.project.conn) as statements:
        # another memory of the same file, written at another time
        later = genome.commits_touching_many([("src/busy.c", "2001-01-01")])
    assert first[("src/busy.c", "2000-01-01")] == later[("src/busy.c", "2001-01-01")] == 3
    # only the genome's bookkeeping is read again (has another process refreshed it?)
    assert not [s for s in statements if "genome_files" in s or "genome_commits" in s], statements
    assert not [s for s in statements if "genome_times" in s], statements
