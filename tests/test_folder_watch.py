"""recall.folder_watch: which stores' memory folders other processes wrote to, on real stores."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import OpenStore, remember

from recall import folder_watch
from recall.folder_events import FolderEvents
from recall.folder_watch import RACY_NS, FolderWatch, look


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


def test_moved_says_what_changes_would_report_without_taking_the_look(
    open_store: Callable[..., OpenStore],
) -> None:
    store = open_store().store
    remember(store, "Already there")
    watch = FolderWatch()
    assert watch.moved([store])  # never looked at: the first look is still to take
    assert watch.changes([store]) == []
    assert not watch.moved([store])
    remember(open_store().store, "Written by another process")
    assert watch.moved([store])
    assert watch.moved([store])  # asking again does not use the change up
    assert [c.store for c in watch.changes([store])] == [store]
    assert not watch.moved([store])


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
    assert change.appeared and not change.vanished


def test_a_folder_taken_away_since_the_last_look_has_vanished(
    open_store: Callable[..., OpenStore],
) -> None:
    store = open_store().store
    remember(store, "There until a branch switch")
    watch = FolderWatch([store])
    shutil.rmtree(store.location.memories_dir)
    [change] = watch.changes([store])
    assert change.vanished and not change.appeared
    assert watch.changes([store]) == []
    assert [c.vanished for c in watch.changes([store], force=True)] == [False]  # said once


def sleep_until_settled(folder: Path) -> None:
    """Sleep until both of the folder's times are older than the racy window."""
    st = folder.stat()
    settles = max(st.st_mtime_ns, st.st_ctime_ns) + RACY_NS
    time.sleep(max(0.0, (settles - time.time_ns()) / 1e9) + 0.05)


def test_a_file_added_then_the_folder_time_set_back_is_a_change(
    open_store: Callable[..., OpenStore],
) -> None:
    # touch -r, rsync -a, cp -a and tar x put a folder's modification time back after filling it
    store = open_store().store
    remember(store, "First")
    folder = store.location.memories_dir
    past = time.time_ns() - 3_600_000_000_000
    os.utime(folder, ns=(past, past))
    sleep_until_settled(folder)
    watch = FolderWatch([store])
    assert watch.changes([store]) == []
    remember(open_store().store, "Second, then the folder's time put back")
    os.utime(folder, ns=(past, past))
    sleep_until_settled(folder)
    assert [c.store for c in watch.changes([store])] == [store]


def test_a_settled_folder_is_listed_once_more_then_only_stat(
    open_store: Callable[..., OpenStore],
) -> None:
    # A long-lived server looks at the folder on every message: listing thousands of memory
    # files each time must stop once the folder's mtime is old enough to trust.
    store = open_store().store
    remember(store, "First")
    folder = store.location.memories_dir
    stamp = time.time_ns() - RACY_NS // 2
    os.utime(folder, ns=(stamp, stamp))  # which sets the change time to now
    racy = look(folder)
    assert racy.listing is not None
    sleep_until_settled(folder)
    settled = look(folder, racy)
    assert settled.listing is not None  # a write hidden in the racy window is still caught
    later = look(folder, settled)
    assert later.listing is None
    assert look(folder, later).listing is None
    watch = FolderWatch([store])
    assert watch.changes([store]) == [] and watch.changes([store]) == []


def test_a_write_hidden_in_the_racy_window_is_seen_when_the_folder_settles(
    open_store: Callable[..., OpenStore],
) -> None:
    store = open_store().store
    remember(store, "First")
    folder = store.location.memories_dir
    stamp = time.time_ns() - RACY_NS // 2
    os.utime(folder, ns=(stamp, stamp))
    watch = FolderWatch([store])
    remember(open_store().store, "Second, within the same clock tick")
    os.utime(folder, ns=(stamp, stamp))
    sleep_until_settled(folder)
    assert [c.store for c in watch.changes([store])] == [store]
    assert watch.changes([store]) == []


def test_a_file_rewritten_in_place_is_seen_where_the_folder_is_watched(
    open_store: Callable[..., OpenStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same size, no rename, the folder's times trusted (no listing): only the inotify watch
    can tell."""
    monkeypatch.setattr(folder_watch, "RACY_NS", 0)
    store = open_store().store
    remember(store, "Cache keyed by tenant")
    watch = FolderWatch([store])
    if watch._events is None:
        pytest.skip("inotify is not available on this system")
    assert watch.changes([store]) == []
    path = next(store.location.memories_dir.glob("*.md"))
    text = path.read_text(encoding="utf-8")
    with path.open("r+", encoding="utf-8") as handle:
        handle.write(text.replace("keyed by tenant", "KEYED BY TENANT"))
    assert [c.store for c in watch.changes([store])] == [store]
    assert watch.changes([store]) == []


def test_a_folder_watched_anew_never_repeats_an_old_generation(tmp_path: Path) -> None:
    events = FolderEvents.create()
    if events is None:
        pytest.skip("inotify is not available on this system")
    folder = tmp_path / "memories"
    folder.mkdir()
    seen = [events.generation(folder)]
    for _ in range(3):
        folder.rmdir()
        folder.mkdir()
        seen.append(events.generation(folder))
        (folder / "a.md").write_text("x\n", encoding="utf-8")
        seen.append(events.generation(folder))
        (folder / "a.md").unlink()
    assert None not in seen and len(set(seen)) == len(seen)
    events.close()


class _Clock:
    """The wall clock as :mod:`recall.folder_watch` reads it, moved on at will: the racy
    window passes without the test waiting for it."""

    def __init__(self) -> None:
        self.ahead_ns = 0

    def time_ns(self) -> int:
        return time.time_ns() + self.ahead_ns


def test_a_timer_looking_after_a_write_stops_listing_once_the_folder_settles(
    open_store: Callable[..., OpenStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    # an idle editor's timer asks moved() every couple of seconds, and changes() only when it
    # says so: after one write, the folder must not be listed on every tick from then on
    clock = _Clock()
    monkeypatch.setattr(folder_watch, "time", clock)
    store = open_store().store
    remember(store, "First")
    watch = FolderWatch([store])
    assert watch.changes([store]) == []
    remember(open_store().store, "Written by another process")
    assert watch.moved([store])
    assert [c.store for c in watch.changes([store])] == [store]  # a look while still racy
    assert not watch.moved([store])
    clock.ahead_ns = 2 * RACY_NS  # the folder's times are now old enough to trust
    assert not watch.moved([store])  # listed once more: nothing hidden in the racy window
    settled = watch.listings
    for _ in range(3):
        assert not watch.moved([store])
    assert watch.listings == settled  # a stat per tick, no listing
    assert watch.changes([store]) == []
    assert watch.listings == settled


def test_a_settling_timer_look_never_uses_up_a_change(
    open_store: Callable[..., OpenStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = _Clock()
    monkeypatch.setattr(folder_watch, "time", clock)
    store = open_store().store
    remember(store, "First")
    watch = FolderWatch([store])
    assert watch.changes([store]) == []  # taken while racy
    remember(open_store().store, "Second, not looked at by changes() yet")
    assert watch.moved([store])
    clock.ahead_ns = 2 * RACY_NS
    assert watch.moved([store]) and watch.moved([store])
    assert [c.store for c in watch.changes([store])] == [store]  # said once
    assert not watch.moved([store])
    assert watch.changes([store]) == []
