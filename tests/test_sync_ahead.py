"""A bulk write syncs its memory files on a thread of its own while it indexes them, and commits
only once that sync is done: the rows naming the files never become visible before it."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from conftest import make_repo

from recall.fs_sync import SyncAhead
from recall.importer import import_lines
from recall.locations import project_location
from recall.store import MemoryStore
from recall.write_behind import WRITE_BEHIND_FROM
from tests.test_write_behind import _lines


def test_the_sync_runs_on_another_thread_and_wait_returns_once_it_is_done() -> None:
    ran_on: list[threading.Thread] = []
    release = threading.Event()

    def flush() -> None:
        ran_on.append(threading.current_thread())
        release.wait(10)

    sync = SyncAhead(flush)
    waited = threading.Thread(target=sync.wait)
    waited.start()
    waited.join(0.2)
    assert waited.is_alive()  # still syncing: wait() does not return before it
    release.set()
    waited.join(10)
    assert not waited.is_alive()
    assert ran_on and ran_on[0] is not threading.current_thread()


def test_a_failed_sync_is_raised_by_wait_unchanged() -> None:
    failure = OSError(5, "Input/output error")

    def flush() -> None:
        raise failure

    sync = SyncAhead(flush)
    with pytest.raises(OSError) as raised:
        sync.wait()
    assert raised.value is failure


def test_an_import_commits_only_after_its_files_are_synced(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)
    store.create_on_disk()
    syncing, release = threading.Event(), threading.Event()
    real_flush = store.folder.flush

    def held_flush() -> None:  # the real sync, then held until the test has looked
        real_flush()
        syncing.set()
        release.wait(30)

    store.folder.flush = held_flush  # type: ignore[method-assign]
    lines = _lines(WRITE_BEHIND_FROM + 100)  # enough for the threaded writer
    results: list[object] = []
    importing = threading.Thread(
        target=lambda: results.extend(import_lines(store, lines, str, "tester"))
    )
    importing.start()
    try:
        assert syncing.wait(60)
        other = sqlite3.connect(store.location.base / "index.db")
        try:  # every file written and synced, the rows not yet visible to anyone
            assert other.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
        finally:
            other.close()
        assert len(list(store.folder.path.glob("*.md"))) > WRITE_BEHIND_FROM
    finally:
        release.set()
        importing.join(60)
    created = sum(getattr(r, "status", None) == "created" for r in results)
    assert created > WRITE_BEHIND_FROM
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == created
    store.close()
