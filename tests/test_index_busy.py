"""Another connection holding the index's SQLite write lock (a genome refresh, the language
server's indexer thread) without the writers' file lock: a store with a wait says it is busy
(:class:`StoreBusy`, naming the store) instead of raising SQLite's error, and the lock can be
looked at without waiting."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from recall.errors import StoreBusy
from recall.index.db import write_locked
from recall.store import MemoryStore
from tests.conftest import OpenStore, remember

WAIT = 0.2
"""The store's wait in these tests: short, as any wait past which SQLite gives up."""


@pytest.fixture
def index_held(store: MemoryStore) -> Iterator[sqlite3.Connection]:
    """A second connection on the store's index holding its write lock, as a genome refresh
    does (``BEGIN IMMEDIATE``, no writers' file lock)."""
    other = sqlite3.connect(store.location.index_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    yield other
    other.execute("ROLLBACK")
    other.close()


@pytest.fixture
def gotcha(store: MemoryStore) -> str:
    """A memory in the store, its index open (with the wait), before the lock is taken."""
    store.wait = WAIT
    return remember(store, "the cache must be warmed before serving")


def test_a_write_under_the_index_lock_says_busy(
    store: MemoryStore, gotcha: str, index_held: sqlite3.Connection
) -> None:
    with pytest.raises(StoreBusy, match=r"project store .* is busy.*retry"):
        store.set_pinned(gotcha, True)
    index_held.execute("ROLLBACK")
    assert store.set_pinned(gotcha, True).pinned  # the same store writes once it is free
    index_held.execute("BEGIN")


def test_a_refresh_under_the_index_lock_says_busy(
    store: MemoryStore, gotcha: str, index_held: sqlite3.Connection
) -> None:
    pulled = store.location.memories_dir / "feedbeef.md"  # a git pull brings one in
    pulled.write_text("---\ncategory: gotcha\nfiles:\n  - src/app.py\n---\npulled\n")
    with pytest.raises(StoreBusy, match="is busy"):
        store.refresh()


def test_the_index_lock_is_seen_without_waiting(
    store: MemoryStore, gotcha: str, tmp_path: Path
) -> None:
    path = store.location.index_path
    assert not write_locked(path)
    assert not write_locked(tmp_path / "none.db")
    assert not (tmp_path / "none.db").exists()  # looking creates nothing
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    assert write_locked(path)
    other.execute("ROLLBACK")
    other.close()
    assert not write_locked(path)


def test_a_store_served_from_a_copy_writes_to_the_index_once_it_is_free(
    store: MemoryStore, gotcha: str, open_store: Callable[..., OpenStore]
) -> None:
    """A store opened while another connection held its index (and the folder had moved on,
    so opening meant writing) reads from a copy; its first write after the lock is let go goes
    to the index itself instead of being refused as read-only."""
    store.close()
    pulled = store.location.memories_dir / "feedbeef.md"  # a git pull brings one in
    pulled.write_text("---\ncategory: gotcha\nfiles:\n  - src/app.py\n---\npulled\n")
    other = sqlite3.connect(store.location.index_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        assert store.get(gotcha).summary == "the cache must be warmed before serving"
        assert store.busy  # read from a copy of the index
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.set_pinned(gotcha, True).pinned
    assert not store.busy
    fresh = open_store().store
    assert fresh.get(gotcha).pinned
    assert fresh.get("feedbeef").summary == "pulled"
