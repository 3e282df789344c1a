"""An edit's hook shares its early look at a large memory folder among the cores: each child
sums the files whose name checksum falls to it, and the parts' answers count only together,
when every part saw the folder with one same stamp."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest
from conftest import OpenStore, remember
from test_deferred_check import children, edit_in_place, settle_folder
from test_early_look import look_done, memories_of

from recall.index import early_look
from recall.index.folder_sums import folder_sums
from recall.store import MemoryStore


@pytest.fixture
def looked_at_early(monkeypatch: pytest.MonkeyPatch) -> None:
    """Look early at a folder of any size and spread an edit's look whatever its size (the
    tests' folders hold a handful of files), with no age limit a loaded machine could pass."""
    monkeypatch.setattr(early_look, "EARLY_MIN_FOLDER_BYTES", 1)
    monkeypatch.setattr(early_look, "SPREAD_MIN_FOLDER_BYTES", 1)
    monkeypatch.setattr(early_look, "EARLY_MAX_AGE_S", 60.0)


@pytest.fixture
def two_shares(open_store: Callable[..., OpenStore]) -> MemoryStore:
    """A project store in a settled folder each of whose two shares holds memory files."""
    store = open_store().store
    folder = memories_of(store)
    for number in range(64):
        if number >= 2 and all(folder_sums(folder, part, 2)[0][0] for part in (0, 1)):
            break
        remember(store, f"Note {number} on the handshake", files=[f"src/n{number}.py"])
    assert all(folder_sums(folder, part, 2)[0][0] for part in (0, 1))
    settle_folder(store)
    return store


def test_a_looks_parts_combine_only_when_each_saw_the_folder_with_one_stamp() -> None:
    stamp, other = (1, 2, 3, 4), (1, 2, 3, 5)
    whole = early_look.combined([(stamp, 1, 10, 100, 7), (stamp, 2, 20, 200, 8)])
    assert whole == (stamp, 3, 30, 300, 15)
    assert early_look.combined([(stamp, 1, 10, 100, 7), (other, 2, 20, 200, 8)]) is None
    assert early_look.combined([(stamp, 1, 10, 100, 7), None]) is None
    assert early_look.combined([]) is None


def test_only_the_hooks_of_an_edit_spread_their_look_among_the_cores() -> None:
    # an edit's hook waits for the verdict; a command that ranks beside it needs its core
    assert early_look.SPREAD_EVENTS == ("pre-edit", "post-edit")


def test_a_folder_one_child_looks_at_sooner_than_a_hook_imports_is_not_spread(
    two_shares: MemoryStore,
    monkeypatch: pytest.MonkeyPatch,
    two_cores: None,
    forks: list[int],
) -> None:
    assert early_look.SPREAD_MIN_FOLDER_BYTES == 384 * 1024  # about 12,000 files on ext4
    monkeypatch.setattr(early_look, "EARLY_MIN_FOLDER_BYTES", 1)
    folder = memories_of(two_shares)
    early_look.begin(str(folder), spread=True)
    assert forks == [os.getpid()]
    look = early_look.take(folder)
    assert look is not None
    look.stop()
    assert children() == []


@pytest.mark.parametrize("spread", [False, True])
def test_a_look_in_two_parts_confirms_the_folder_and_sees_an_edit_in_either_share(
    two_shares: MemoryStore,
    open_store: Callable[..., OpenStore],
    looked_at_early: None,
    two_cores: None,
    forks: list[int],
    file_stats: list[str],
    spread: bool,
) -> None:
    folder = memories_of(two_shares)
    file_stats.clear()
    early_look.begin(str(folder), spread)
    assert len(forks) == (2 if spread else 1)
    look_done()
    opened = open_store().store
    assert opened.conn is not None and early_look.take(folder) is None  # taken
    assert file_stats == []  # the answer, whole or combined, confirmed the folder
    assert children() == []
    # each file edited in place in turn: whichever share holds it, the look does not match
    for name in sorted(path.name for path in folder.glob("*.md")):
        memory_id = name.removesuffix(".md")
        summary = opened.get(memory_id).summary
        edit_in_place(opened, memory_id, summary, summary + " (edited)")
        past = time.time() - 3600  # dated back: the sync keeps its fingerprint for the next
        os.utime(folder / name, (past, past))
        file_stats.clear()
        early_look.begin(str(folder), spread)
        look_done()
        opened = open_store().store
        assert opened.conn is not None and early_look.take(folder) is None  # taken
        assert file_stats != []  # compared, refused, checked here
        assert opened.get(memory_id).summary == summary + " (edited)"
