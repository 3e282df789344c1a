"""A one-shot command's look at its memory folder, begun in a child as the command starts: its
answer taken by the first sync of the folder when the folder is as it was looked at, and never
when a file was added or the folder replaced since, when the folder changed too recently for
its times to tell, or when the look is older than a command takes to reach its first sync."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import OpenStore, remember
from test_deferred_check import children, edit_in_place, settle_folder

from recall.index import early_look
from recall.ranking.query import RecallQuery, Touch
from recall.service import build_recaller
from recall.store import MemoryStore


@pytest.fixture
def any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Look early at a folder of any size (the tests' folders hold a handful of files), and
    spread an edit's look among the cores whatever its size."""
    monkeypatch.setattr(early_look, "EARLY_MIN_FOLDER_BYTES", 1)
    monkeypatch.setattr(early_look, "SPREAD_MIN_FOLDER_BYTES", 1)
    # a loaded machine may take longer than a command between a test's look and its sync
    monkeypatch.setattr(early_look, "EARLY_MAX_AGE_S", 60.0)


@pytest.fixture
def settled(open_store: Callable[..., OpenStore]) -> Iterator[tuple[MemoryStore, str]]:
    """A project store of two memories in a settled folder, and the id of the one on app.py."""
    store = open_store().store
    target = remember(store, "Retry the flaky handshake twice", files=["src/app.py"])
    remember(store, "Prefer tabs in the guide", category="pref", files=["docs/guide.md"])
    settle_folder(store)
    yield store, target


def memories_of(store: MemoryStore) -> Path:
    return store.location.memories_dir


def look_done() -> None:
    """Wait until every child of this process has ended (the look has answered), up to 10 s."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        states = []
        for pid in children():
            with contextlib.suppress(FileNotFoundError):
                states.append(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0])
        if all(state == "Z" for state in states):
            return
        time.sleep(0.01)
    raise AssertionError("the look's child did not end within 10 s")


def looked_at(store: MemoryStore) -> Path:
    """The store's memory folder, once a look begun there has answered."""
    folder = memories_of(store)
    early_look.begin(str(folder))
    look_done()
    return folder


def recall_app(store: MemoryStore) -> list[str]:
    """Summaries a one-shot engine over ``store`` ranks for an edit of src/app.py."""
    recaller = build_recaller([store], store, notice=lambda _: None, short_lived=True)
    result = recaller.recall(RecallQuery((Touch("src/app.py", "edit"),), "handshake backoff"))
    return [h.memory.summary for h in result.hits]


def run_entry(monkeypatch: pytest.MonkeyPatch, words: list[str], stdin: bytes) -> None:
    """The console script's entry, in this process, as a one-shot command no warm engine
    takes: ``tether WORDS`` with ``stdin``; it ends as it exits, successfully."""
    from recall.cli.entry import entry

    monkeypatch.setenv("TETHER_WARM", "0")
    monkeypatch.setattr("sys.argv", ["tether", *words])
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    try:
        with pytest.raises(SystemExit) as done:
            entry()
    finally:
        import gc

        gc.enable()  # the entry turns the collector off for a one-shot command
    assert done.value.code in (0, None)


def test_the_pre_edit_hook_takes_the_look_begun_at_its_start_and_warns_of_the_edit(
    settled: tuple[MemoryStore, str],
    repo: Path,
    any_size: None,
    two_cores: None,
    forks: list[int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The hook used to stat its folder itself; now the child begun by the command's entry does,
    # and the edit in place it finds is synced before the hook reads the file's memories.
    store, target = settled
    edit_in_place(store, target, "Retry the flaky handshake twice", "Backoff doubles")
    payload = {
        "session_id": "early-1",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / "src/app.py"), "old_string": "a", "new_string": "b"},
    }
    run_entry(monkeypatch, ["hook", "pre-edit"], json.dumps(payload).encode())
    out = capsys.readouterr().out
    assert "Backoff doubles" in out and "flaky handshake" not in out
    # the early look only, one child per core: no check of its own
    assert forks == [os.getpid()] * 2
    assert children() == []


def test_tether_inject_looks_at_its_folder_in_one_child_and_ranks_beside_it(
    settled: tuple[MemoryStore, str],
    repo: Path,
    any_size: None,
    forks: list[int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # a second child would take the core its ranking runs on
    monkeypatch.chdir(repo)
    run_entry(monkeypatch, ["inject", "--no-record", "--file", "src/app.py"], b"handshake retries")
    assert "Retry the flaky handshake twice" in capsys.readouterr().out
    assert forks == [os.getpid()]
    assert children() == []


def test_a_look_at_the_folder_as_indexed_is_taken_by_the_first_opening(
    settled: tuple[MemoryStore, str],
    open_store: Callable[..., OpenStore],
    any_size: None,
    forks: list[int],
) -> None:
    folder = memories_of(settled[0])
    early_look.begin(str(folder))
    assert forks == [os.getpid()]
    store = open_store().store
    assert store.conn is not None
    assert early_look.take(folder) is None  # taken by the opening's sync
    assert children() == []
    assert "Retry the flaky handshake twice" in recall_app(store)


def test_a_file_written_by_hand_after_the_look_is_indexed_all_the_same(
    settled: tuple[MemoryStore, str],
    open_store: Callable[..., OpenStore],
    any_size: None,
) -> None:
    # The look's sums match the index (neither holds the new file): only the folder's stamp,
    # moved by the new file, says the answer is out of date.
    store, target = settled
    folder = looked_at(store)  # before the new file
    text = (folder / f"{target}.md").read_text(encoding="utf-8")
    # the id line as written: quoted when the id reads as a number to YAML (``"01216471"``)
    copy = re.sub(r"(?m)^id: .*$", "id: 0badcafe", text, count=1).replace(
        "Retry the flaky handshake twice", "Backoff doubles on every retry"
    )
    (folder / "0badcafe.md").write_text(copy, encoding="utf-8")
    fresh = open_store().store
    assert "Backoff doubles on every retry" in recall_app(fresh)
    assert children() == []


def test_an_edit_in_place_before_the_look_is_synced_by_an_engine_that_settles_it(
    settled: tuple[MemoryStore, str],
    open_store: Callable[..., OpenStore],
    any_size: None,
) -> None:
    store, target = settled
    edit_in_place(store, target, "Retry the flaky handshake twice", "Backoff doubles")
    early_look.begin(str(memories_of(store)))
    fresh = open_store().store
    assert recall_app(fresh)[:1] == ["Backoff doubles"]
    assert children() == []


def test_a_folder_replaced_after_the_look_is_checked_afresh(
    settled: tuple[MemoryStore, str],
    open_store: Callable[..., OpenStore],
    any_size: None,
) -> None:
    # A folder swapped for a copy holding an edit, with the same names and sizes: another
    # directory (its inode), so the look made of the old one is not its answer.
    store, target = settled
    folder = looked_at(store)  # the old folder
    copy = folder.with_name("memories-new")
    shutil.copytree(folder, copy)
    text = (copy / f"{target}.md").read_text(encoding="utf-8")
    (copy / f"{target}.md").write_text(text.replace("twice", "trice"), encoding="utf-8")
    os.rename(folder, folder.with_name("memories-old"))
    os.rename(copy, folder)
    fresh = open_store().store
    assert "Retry the flaky handshake trice" in recall_app(fresh)
    assert children() == []


def test_no_look_at_a_small_folder(settled: tuple[MemoryStore, str], forks: list[int]) -> None:
    folder = memories_of(settled[0])
    assert early_look.EARLY_MIN_FOLDER_BYTES == 64 * 1024
    early_look.begin(str(folder))  # a few files: the stats cost less than a fork
    assert forks == []
    assert early_look.take(folder) is None


def test_no_look_through_a_link(
    settled: tuple[MemoryStore, str], tmp_path: Path, any_size: None, forks: list[int]
) -> None:
    folder = memories_of(settled[0])
    link = tmp_path / "linked" / ".tether"
    link.parent.mkdir()
    link.symlink_to(folder.parent, target_is_directory=True)
    early_look.begin(str(link / "memories"))
    early_look.begin(str(tmp_path / "linked" / "elsewhere"))  # missing: nothing either
    assert forks == []
    assert early_look.take(link / "memories") is None


def test_the_sums_a_look_makes_are_the_fingerprint_of_the_folders_scan(tmp_path: Path) -> None:
    # What the child sums must be what a sync fingerprints, for every kind of entry a folder
    # can hold: a name that is not UTF-8, a hidden file, another suffix, a folder and a link.
    from recall.index.folder_sums import folder_sums
    from recall.index.sync import Fingerprint
    from recall.memfiles import MemoryFolder

    folder = tmp_path / "memories"
    folder.mkdir()
    (folder / "0a1b2c3d.md").write_text("one", encoding="utf-8")
    (folder / "ffff0000.md").write_text("three", encoding="utf-8")
    with open(os.path.join(os.fsencode(folder), b"caf\xe9.md"), "wb") as handle:
        handle.write(b"latin-1 name")
    (folder / ".hidden.md").write_text("no", encoding="utf-8")
    (folder / "notes.txt").write_text("no", encoding="utf-8")
    (folder / "sub.md").mkdir()
    (folder / "link.md").symlink_to(folder / "0a1b2c3d.md")
    sums, names = folder_sums(folder)
    scanned = MemoryFolder(folder).scan()
    assert Fingerprint(*sums) == Fingerprint.of(scanned)
    assert sorted(names) == sorted(os.fsencode(s.name) for s in scanned)
    assert len(names) == 3
    for parts in (2, 3):  # the shares of a look spread among children add up to the whole
        shares = [folder_sums(folder, part, parts) for part in range(parts)]
        assert tuple(map(sum, zip(*(share for share, _ in shares), strict=True))) == sums
        assert sorted(name for _, share in shares for name in share) == sorted(names)


def test_the_answer_of_a_look_spares_this_process_every_stat_of_a_memory_file(
    settled: tuple[MemoryStore, str],
    open_store: Callable[..., OpenStore],
    any_size: None,
    file_stats: list[str],
) -> None:
    looked_at(settled[0])
    store = open_store().store
    assert store.conn is not None
    assert file_stats == []
    assert children() == []


def test_a_look_is_taken_within_half_a_second_of_its_start() -> None:
    assert early_look.EARLY_MAX_AGE_S == 0.5  # a cold command's first sync comes within 0.2 s


def test_a_look_older_than_a_command_takes_to_its_first_sync_is_not_taken(
    settled: tuple[MemoryStore, str],
    open_store: Callable[..., OpenStore],
    any_size: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An inject waiting for its prompt on standard input: the folder edited meanwhile.
    store, target = settled
    looked_at(store)
    edit_in_place(store, target, "Retry the flaky handshake twice", "Backoff doubles")
    monkeypatch.setattr(early_look, "EARLY_MAX_AGE_S", 0.0)
    fresh = open_store().store
    assert recall_app(fresh)[:1] == ["Backoff doubles"]
    assert children() == []


def test_a_hook_refused_for_its_words_never_waits_for_its_input(repo: Path) -> None:
    # stdin left open (an agent's runner that never closes it): the refusal comes at once
    for words in (["hook", "bogus"], ["hook"], ["hook", "prompt", "extra"]):
        env = {**os.environ, "TETHER_WARM": "0"}
        command = [sys.executable, "-c", "from recall.cli.entry import entry; entry()", *words]
        with subprocess.Popen(
            command,
            cwd=repo,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        ) as proc:
            try:
                proc.wait(timeout=60)  # before, it read its input to the end first
            finally:
                proc.kill()
                assert proc.stdin is not None
                proc.stdin.close()
