"""One engine across an index rebuilt under it: nothing read from the old index is reused.

A damaged index is rebuilt from the memory files on a new connection, with its rowids given
out afresh; the engine's word counts, vector matrix and genome must follow, whether the
rebuild happened inside a recall or through any other write of the store.
"""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from recall.ranking import file_channels as fc
from recall.ranking.engine import Recaller
from recall.ranking.query import RecallQuery, Touch

from .world import World

TEXTS = ["zebra giraffe okapi", "kettle teapot saucer", "violin cello viola", "granite basalt"]


def _query(prompt: str, *files: str) -> RecallQuery:
    return RecallQuery(tuple(Touch(f, "edit") for f in files), prompt, scopes=("project",))


@pytest.fixture
def crowd(world: World) -> World:
    world.history([["a.c", "b.c"], ["b.c"]])
    for text in TEXTS:
        world.remember(text, "a.c")
    return world


def _recaller(world: World, *, short_lived: bool = False) -> Recaller:
    store = world.project
    return Recaller(
        [store], world.genome(), cache_dir=store.location.base / "cache", short_lived=short_lived
    )


def test_a_recall_that_meets_damage_rebuilds_and_answers(
    crowd: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = _recaller(crowd)
    engine.recall(_query("parser", "a.c"))  # word counts and genome read once
    real, failed = fc.cochange, []

    def damaged_once(*args: object, **kwargs: object) -> object:
        # what SQLite raises when a page of the index is corrupt
        if not failed:
            failed.append(True)
            raise sqlite3.DatabaseError("database disk image is malformed")
        return real(*args, **kwargs)

    monkeypatch.setattr(fc, "cochange", damaged_once)
    result = engine.recall(_query("kettle teapot", "a.c"))

    assert failed
    assert result.hits[0].memory.summary == "kettle teapot saucer"


@pytest.mark.parametrize("short_lived", [False, True])
def test_a_rebuild_by_another_write_is_followed(crowd: World, short_lived: bool) -> None:
    engine = _recaller(crowd, short_lived=short_lived)
    before = engine.recall(_query("kettle teapot", "a.c"))
    store = crowd.project
    old = store.conn

    store.recover(sqlite3.DatabaseError("database disk image is malformed"))
    assert store.conn is not old
    after = engine.recall(_query("kettle teapot", "b.c"))

    assert before.hits[0].memory.summary == "kettle teapot saucer"
    assert after.hits[0].memory.summary == "kettle teapot saucer"
    assert "sem" in after.hits[0].receipt  # the vectors of the rebuilt index, not the old


@pytest.mark.parametrize("short_lived", [False, True])
def test_a_reindex_gives_the_semantic_channel_the_new_rowids(
    crowd: World, short_lived: bool
) -> None:
    engine = _recaller(crowd, short_lived=short_lived)
    engine.recall(_query("kettle teapot"))
    crowd.project.reindex()  # rowids are handed out again, in file-name order

    hits = engine.recall(_query("kettle teapot")).hits

    similar = [hit for hit in hits if "sem" in hit.receipt]
    assert similar[0].memory.summary == "kettle teapot saucer"
    assert all(
        crowd.semantic_cosine("kettle teapot", hit.memory.id) > 0 or "text" in hit.receipt
        for hit in similar
    )


def test_a_memory_folder_taken_away_under_an_open_store_gives_nothing_and_no_failure(
    crowd: World,
) -> None:
    recaller = _recaller(crowd)
    assert recaller.recall(_query("zebra", "a.c")).hits  # the store open on its index
    shutil.rmtree(crowd.project.location.memories_dir)  # a branch switch; the index stays
    # before the store is told (a watcher's next look), a recall must not fail on it
    assert recaller.recall(_query("zebra", "a.c")).hits == []
