"""recall.folder_events: inotify watches on memory folders, on real
folders and real stores (the kernel's own events; nothing simulated but the clock and an
overflow, which no test can make the kernel produce on demand)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import OpenStore, remember

from recall import folder_events
from recall.folder_events import FULL_CHECK_EVERY_S, LOCAL_FILESYSTEMS, FolderEvents
from recall.index import sync
from recall.index.sync import Fingerprint

STORED = Fingerprint(3, 30, 300, 3000)


@pytest.fixture
def events() -> Iterator[FolderEvents]:
    made = FolderEvents.create()
    if made is None:
        pytest.skip("inotify is not available on this system")
    yield made
    made.close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "memories"
    path.mkdir()
    (path / "a.md").write_text("first\n", encoding="utf-8")
    (path / "b.md").write_text("second\n", encoding="utf-8")
    return path


def confirmed(events: FolderEvents, folder: Path) -> None:
    """A full check of ``folder`` that found it as :data:`STORED` says."""
    look = events.begin(folder)
    assert look is not None
    events.confirm(look, STORED)


def is_quiet(events: FolderEvents, folder: Path, stored: Fingerprint = STORED) -> bool:
    look = events.begin(folder)
    return look is not None and events.quiet(look, stored)


def test_a_folder_nothing_touched_since_its_check_is_quiet(
    events: FolderEvents, folder: Path
) -> None:
    assert not is_quiet(events, folder)  # never checked: checked in full
    confirmed(events, folder)
    assert is_quiet(events, folder)
    assert is_quiet(events, folder)
    (folder / "a.md").read_text(encoding="utf-8")  # reading is not a change
    assert is_quiet(events, folder)
    assert not is_quiet(events, folder, Fingerprint(4, 30, 300, 3000))  # the index moved
    assert (events.looks, events.skipped) == (6, 3)


def rewrite_in_place(folder: Path) -> None:
    with (folder / "a.md").open("r+", encoding="utf-8") as handle:
        handle.write("FIRST")


def rename_in(folder: Path) -> None:
    (folder.parent / "c.md").write_text("third\n", encoding="utf-8")
    os.rename(folder.parent / "c.md", folder / "c.md")


def rename_out(folder: Path) -> None:
    os.rename(folder / "b.md", folder.parent / "b.md")


CHANGES: dict[str, Callable[[Path], object]] = {
    "rewritten in place": rewrite_in_place,
    "touched": lambda folder: os.utime(folder / "a.md", ns=(1, 1)),
    "made unreadable": lambda folder: os.chmod(folder / "a.md", 0),
    "created": lambda folder: (folder / "c.md").write_text("third\n", encoding="utf-8"),
    "deleted": lambda folder: (folder / "b.md").unlink(),
    "renamed into the folder": rename_in,
    "renamed out of it": rename_out,
    "replaced by a link": lambda folder: (
        (folder / "b.md").unlink(),
        os.symlink("/", folder / "b.md"),
    ),
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_every_change_to_a_file_makes_the_next_request_check(
    events: FolderEvents, folder: Path, change: str
) -> None:
    confirmed(events, folder)
    CHANGES[change](folder)
    assert not is_quiet(events, folder)
    confirmed(events, folder)  # checked again: quiet until the next change
    assert is_quiet(events, folder)


def test_a_change_during_the_check_is_not_vouched_for(events: FolderEvents, folder: Path) -> None:
    look = events.begin(folder)
    assert look is not None
    rewrite_in_place(folder)  # after the look, before the check's result is confirmed
    events.confirm(look, STORED)
    assert not is_quiet(events, folder)


@pytest.mark.parametrize("how", ["removed and made again", "moved away and another moved in"])
def test_a_replaced_folder_is_checked_and_watched_anew(
    events: FolderEvents, folder: Path, how: str
) -> None:
    confirmed(events, folder)
    if how == "removed and made again":
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
        folder.mkdir()
    else:
        other = folder.parent / "other"
        other.mkdir()
        folder.rename(folder.parent / "old")
        other.rename(folder)
    assert not is_quiet(events, folder)
    confirmed(events, folder)
    assert is_quiet(events, folder)
    (folder / "new.md").write_text("seen through the new watch\n", encoding="utf-8")
    assert not is_quiet(events, folder)


def test_a_lost_queue_makes_every_folder_check(
    events: FolderEvents, folder: Path, tmp_path: Path
) -> None:
    second = tmp_path / "global"
    second.mkdir()
    confirmed(events, folder)
    confirmed(events, second)
    events.note(0x4000, -1)  # IN_Q_OVERFLOW, as the kernel reports it
    assert not is_quiet(events, folder)
    assert not is_quiet(events, second)
    # the lost events may have said a watch ended: here the kernel's watch is dropped and its
    # last event lost with the queue; each watch is started anew, and works
    events._inotify.rm_watch(events._folders[str(folder)].wd)
    events._inotify.read(timeout=0)
    events.note(0x4000, -1)
    confirmed(events, folder)
    assert is_quiet(events, folder)
    rewrite_in_place(folder)
    assert not is_quiet(events, folder)


def test_a_quiet_folder_is_checked_in_full_after_a_while(
    events: FolderEvents, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    confirmed(events, folder)
    now = folder_events.time.monotonic()
    monkeypatch.setattr(folder_events.time, "monotonic", lambda: now + FULL_CHECK_EVERY_S + 1)
    assert not is_quiet(events, folder)


def test_a_folder_on_a_file_system_not_listed_as_local_is_not_watched(
    events: FolderEvents, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert folder_events.filesystem_type(str(folder)) in LOCAL_FILESYSTEMS
    monkeypatch.setattr(folder_events, "LOCAL_FILESYSTEMS", frozenset())
    assert events.begin(folder) is None
    assert events.begin(folder.parent / "missing") is None


def test_the_constants_of_the_watch() -> None:
    assert FULL_CHECK_EVERY_S == 60.0
    assert {"ext4", "xfs", "btrfs", "tmpfs", "overlay"} <= LOCAL_FILESYSTEMS
    assert not {"nfs", "nfs4", "cifs", "smb3", "fuse", "fuse.sshfs", "9p"} & LOCAL_FILESYSTEMS


@pytest.fixture
def watched_syncs(events: FolderEvents) -> Iterator[FolderEvents]:
    sync.use_folder_events(events)
    yield events
    sync.use_folder_events(None)


def test_a_store_sync_skips_a_quiet_folder_and_sees_an_edit_in_place(
    open_store: Callable[..., OpenStore], watched_syncs: FolderEvents
) -> None:
    store = open_store().store
    ident = remember(store, "the cache is keyed by tenant")
    path = next(store.location.memories_dir.glob("*.md"))
    os.utime(path, ns=(10**18, 10**18))  # written long ago: not within the racy window
    store.refresh()  # after the change: checked in full
    skipped = watched_syncs.skipped
    store.refresh()
    assert watched_syncs.skipped == skipped + 1
    text = path.read_text(encoding="utf-8")
    with path.open("r+", encoding="utf-8") as handle:  # same size, no rename
        handle.write(text.replace("keyed by tenant", "KEYED BY TENANT"))
    store.refresh()
    assert "KEYED BY TENANT" in store.get(ident).summary
    assert watched_syncs.skipped == skipped + 1
