"""recall.folder_watch: which stores' memory folders other processes wrote to, on real stores."""

from __future__ import annotations

import os
from collections.abc import Callable

from conftest import OpenStore, remember

from recall.folder_watch import FolderWatch


def test_a_write_is_seen_once_and_the_first_look_only_records(
    open_store: Callable[..., OpenStore],
) -> None:
    store = open_store().store
    remember(store, "Already there")
    watch = FolderWatch()
    assert watch.changes([store]) == []  # first look: recorded, not a change
    assert watch.changes([store]) == []
    remember(open_store().store, "Written by another process")
    [change] = watch.changes([store])
    assert change.store is store and not change.appeared
    assert watch.changes([store]) == []
    assert [c.store for c in watch.changes([store], force=True)] == [store]


def test_a_write_that_leaves_the_folder_mtime_unchanged_is_still_seen(
    open_store: Callable[..., OpenStore],
) -> None:
    store = open_store().store
    remember(store, "First")
    folder = store.location.memories_dir
    watch = FolderWatch([store])
    stamp = os.stat(folder).st_mtime_ns
    remember(open_store().store, "Second, within the same clock tick")
    os.utime(folder, ns=(stamp, stamp))  # a coarse clock: the folder's mtime did not move
    assert [c.store for c in watch.changes([store])] == [store]


def test_a_folder_created_since_the_last_look_has_appeared(
    open_store: Callable[..., OpenStore],
) -> None:
    store = open_store().store
    watch = FolderWatch([store])
    assert not store.location.memories_dir.exists()
    remember(open_store().store, "The first memory creates the folder")
    [change] = watch.changes([store])
    assert change.appeared
