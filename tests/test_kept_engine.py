"""Stores and the recall engine kept between the commands of one long-lived process
(recall.kept_engine), against real stores in a temp repository: each command is opened and
closed as the CLI and the hooks do, and another writer changes things between them."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Notices, git, remember

from recall import kept_engine
from recall.locations import global_location, project_location
from recall.ranking.engine import Hit, Recaller
from recall.ranking.query import RecallQuery, Touch
from recall.service import FolderStores, build_recaller
from recall.store import MemoryStore


@pytest.fixture
def keeping() -> Iterator[None]:
    """Keep stores and engines between commands for this test only."""
    kept_engine.keep_between_commands()
    yield
    kept_engine.stop_keeping()


def command(
    cwd: Path, prompt: str, files: tuple[str, ...] = ("src/app.py",)
) -> tuple[list[Hit], Recaller, list[MemoryStore]]:
    """One command as ``tether inject`` runs it: stores opened, engine built, one recall, all
    closed (or kept)."""
    folder = FolderStores(cwd, notice=Notices())
    try:
        stores = folder.stores("all")
        recaller = build_recaller(
            stores, folder.project_if_any(), notice=Notices(), short_lived=True
        )
        touches = tuple(Touch(path, "edit") for path in files)
        hits = recaller.recall(RecallQuery(touches, prompt)).hits
        return hits, recaller, stores
    finally:
        folder.close()


def other_writer(location_of: Path | None = None, *, scope: str = "project") -> MemoryStore:
    """A store of its own on the same folder, as another process opens it."""
    if scope == "global":
        return MemoryStore(global_location(location_of or Path.cwd()), notice=Notices())
    return MemoryStore(project_location(location_of or Path.cwd()), notice=Notices())


def written(repo: Path, summary: str, *, scope: str = "project", **kwargs: object) -> str:
    store = other_writer(repo, scope=scope)
    try:
        return remember(store, summary, **kwargs)
    finally:
        store.close()


def test_the_next_command_gets_the_same_engine_and_sees_what_another_writer_did(
    repo: Path, keeping: None
) -> None:
    first_id = written(repo, "flush the buffer before exit")
    hits, recaller, stores = command(repo, "flush buffer")
    assert [h.memory.id for h in hits] == [first_id]

    second_id = written(repo, "the audit log rotates nightly")
    hits, again, stores_again = command(repo, "audit log")
    assert again is recaller and all(a is b for a, b in zip(stores_again, stores, strict=True))
    assert second_id in [h.memory.id for h in hits]
    assert kept_engine.reused_engines() == 1

    # a memory file rewritten in place: no file added, the folder's own times unchanged
    path = next(p for p in (repo / ".tether/memories").glob("*.md") if "audit" in p.read_text())
    before = path.stat()
    path.write_text(path.read_text().replace("audit log", "AUDIT LOG"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))
    hits, _, _ = command(repo, "audit log")
    assert any("AUDIT LOG" in h.memory.summary for h in hits)
    assert kept_engine.reused_engines() == 2


def test_the_kept_engine_follows_new_commits(repo: Path, keeping: None) -> None:
    written(repo, "flush the buffer before exit")
    hits, recaller, _ = command(repo, "flush buffer")
    assert hits[0].drift == 0
    for number in range(recaller.drift_commits):
        (repo / "src/app.py").write_text(f"print({number})\n")
        git(repo, "commit", "-qam", f"app {number}")
    hits, again, _ = command(repo, "flush buffer")
    assert again is recaller
    assert hits[0].drift >= recaller.drift_commits  # the first commit may share its second


def test_a_global_store_created_meanwhile_is_read(repo: Path, keeping: None) -> None:
    written(repo, "flush the buffer before exit")
    _, _, stores = command(repo, "flush buffer")
    assert [s.scope for s in stores] == ["project", "global"] and not stores[1].exists
    preference = written(repo, "flush buffers explicitly", scope="global", files=[])
    hits, _, _ = command(repo, "flush buffers explicitly")
    assert preference in [h.memory.id for h in hits]


def test_a_store_closed_mid_write_is_not_kept(repo: Path, keeping: None) -> None:
    written(repo, "flush the buffer before exit")
    folder = FolderStores(repo, notice=Notices())
    store = folder.project()
    store.conn.execute("BEGIN IMMEDIATE")
    folder.close()
    again = FolderStores(repo, notice=Notices())
    try:
        assert again.project() is not store
    finally:
        again.close()
    store.close()


def test_nothing_is_kept_unless_asked(repo: Path) -> None:
    written(repo, "flush the buffer before exit")
    _, recaller, stores = command(repo, "flush buffer")
    _, again, stores_again = command(repo, "flush buffer")
    assert again is not recaller and stores_again[0] is not stores[0]
    assert kept_engine.reused_engines() == 0


def busy_timeout(store: MemoryStore) -> int:
    """How long the store's index connection waits for another writer, in ms."""
    return int(store.conn.execute("PRAGMA busy_timeout").fetchone()[0])


def test_a_kept_store_waits_as_long_as_the_command_using_it_says(repo: Path, keeping: None) -> None:
    written(repo, "flush the buffer before exit")
    _, _, stores = command(repo, "flush buffer")  # an inject: as long as it takes
    inject_wait = busy_timeout(stores[0])
    hook = kept_engine.open_store(project_location(repo), Notices())
    hook.wait = 0.25  # a hook's own wait, set after opening as the hooks set it
    try:
        assert hook is stores[0] and busy_timeout(hook) == 250
    finally:
        kept_engine.close_store(hook)
    _, _, again = command(repo, "flush buffer")
    assert again[0] is stores[0] and busy_timeout(again[0]) == inject_wait > 250


def test_a_memory_folder_gone_leaves_the_index_on_disk_alone(repo: Path, keeping: None) -> None:
    written(repo, "flush the buffer before exit")
    command(repo, "flush buffer")
    memories = repo / ".tether/memories"
    memories.rename(repo / "aside")  # a checkout of a branch without the store, say
    try:
        hits, _, stores = command(repo, "flush buffer")
        assert hits == [] and not stores[0].exists
        # as a fresh process: an empty index in memory, the one on disk left as it was
        index = sqlite3.connect(project_location(repo).index_path)
        try:
            assert index.execute("SELECT count(*) FROM memories").fetchone()[0] == 1
        finally:
            index.close()
    finally:
        (repo / "aside").rename(memories)
    hits, _, _ = command(repo, "flush buffer")
    assert [h.memory.summary for h in hits] == ["flush the buffer before exit"]


def test_a_store_busy_past_a_hooks_wait_is_read_as_a_copy_and_not_kept(
    repo: Path, keeping: None
) -> None:
    written(repo, "flush the buffer before exit")
    _, _, stores = command(repo, "flush buffer")
    added = written(repo, "the audit log rotates nightly")  # the next use has a file to sync
    writer = sqlite3.connect(project_location(repo).index_path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process mid-write, past the hook's wait
    try:
        hook = kept_engine.open_store(project_location(repo), Notices())
        hook.wait = 0.05
        assert hook is stores[0]
        hook.conn  # noqa: B018 - the hook's first read
        assert hook.read_only is not None  # served as a copy of the index as it was
        kept_engine.close_store(hook)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    hits, _, again = command(repo, "audit log")
    assert again[0] is not stores[0] and added in [h.memory.id for h in hits]


@pytest.mark.parametrize("one_listener", [False, True], ids=["own listener", "one for all"])
def test_memories_left_out_of_the_semantic_channel_are_told_to_every_command(
    repo: Path, keeping: None, monkeypatch: pytest.MonkeyPatch, one_listener: bool
) -> None:
    """Told to each command, whether each passes a listener of its own (the CLI's context) or
    all pass the same one (the hooks' module-level notice), as fresh processes tell it."""
    from recall.ranking import vectors

    monkeypatch.setattr(vectors, "RECALL_COMPUTE_MAX", 0)  # as at thousands without vectors
    written(repo, "flush the buffer before exit")
    store = other_writer(repo)
    try:
        store.conn.execute("DELETE FROM vectors")  # as a model changed since they were made
        store.conn.execute("DELETE FROM meta WHERE key = 'vectors_complete'")
    finally:
        store.close()
    shared = Notices()
    heard = []
    for _ in range(2):
        said = shared if one_listener else Notices()
        folder = FolderStores(repo, notice=said)
        try:
            stores = folder.stores("all")
            recaller = build_recaller(stores, folder.project_if_any(), notice=said)
            recaller.recall(RecallQuery((Touch("src/app.py", "edit"),), "flush the buffer"))
        finally:
            folder.close()
        heard.append(sum("left out of the semantic channel" in line for line in said))
    assert heard == ([1, 2] if one_listener else [1, 1])
    assert kept_engine.reused_engines() == 1


def test_a_folder_gone_between_opening_and_first_read_leaves_the_index_alone(
    repo: Path, keeping: None
) -> None:
    written(repo, "flush the buffer before exit")
    command(repo, "flush buffer")
    store = kept_engine.open_store(project_location(repo), Notices())
    memories = repo / ".tether/memories"
    memories.rename(repo / "aside")
    try:
        assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
        index = sqlite3.connect(project_location(repo).index_path)
        try:
            assert index.execute("SELECT count(*) FROM memories").fetchone()[0] == 1
        finally:
            index.close()
    finally:
        kept_engine.close_store(store)
        (repo / "aside").rename(memories)


def test_a_store_read_as_a_copy_while_busy_is_writable_once_opened_again(repo: Path) -> None:
    written(repo, "flush the buffer before exit")
    store = other_writer(repo)
    store.wait = 0.05
    writer = sqlite3.connect(project_location(repo).index_path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        assert store.conn is not None and store.read_only is not None and not store.reusable()
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    store.close()
    try:  # opened again with nobody else writing: a writable index, guarded by the lock again
        assert store.conn is not None and store.read_only is None and store.reusable()
    finally:
        store.close()


def test_an_index_rebuilt_by_another_process_gets_an_engine_built_on_it(
    repo: Path, keeping: None
) -> None:
    first_id = written(repo, "flush the buffer before exit")
    _, recaller, stores = command(repo, "flush buffer")
    store = other_writer(repo)
    try:
        store.reindex()  # a new index file: rowids assigned anew
        second_id = remember(store, "the audit log rotates nightly")
    finally:
        store.close()
    hits, again, stores_again = command(repo, "flush buffer audit log")
    assert stores_again[0] is stores[0] and again is not recaller
    assert {first_id, second_id} <= {h.memory.id for h in hits}
    assert again.repo.conn is stores[0].conn  # the genome reads the new index
