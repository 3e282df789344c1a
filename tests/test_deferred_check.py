"""A fresh engine's folder check, run in a child beside its first ranking: the index read as it
stands, the verdict asked for before anything is answered or written, and a recall ranked
again when a file changed under the index."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import OpenStore, remember, run_tether

from recall.index import deferred_check
from recall.index.sync import RACY_WINDOW_NS
from recall.ranking.query import RecallQuery, Touch
from recall.service import build_recaller
from recall.store import MemoryStore
from recall.writer_lock import writer_lock


@pytest.fixture
def any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defer the check of a folder of any size (the tests' folders hold a handful of files)."""
    monkeypatch.setattr(deferred_check, "DEFER_MIN_FILES", 1)


def settle_folder(store: MemoryStore) -> None:
    """Date the memory files and their folder an hour back and wait out the racy window, then
    open the index once so that it keeps the folder's listing (what a deferred check stats)."""
    folder = store.location.memories_dir
    past = time.time() - 3600
    for path in folder.iterdir():
        os.utime(path, (past, past))
    os.utime(folder, (past, past))
    settles = (folder.stat().st_ctime_ns + RACY_WINDOW_NS) / 1e9
    time.sleep(max(0.0, settles - time.time()) + 0.05)
    store.refresh()
    store.refresh()  # the first compared the new times and listed; the second keeps it


def edit_in_place(store: MemoryStore, memory_id: str, old: str, new: str) -> None:
    """Rewrite a memory file in place, as an editor saving over it does: the folder's own
    times do not move, only the file's."""
    path = store.location.memories_dir / f"{memory_id}.md"
    folder_time = store.location.memories_dir.stat().st_mtime_ns
    with path.open("r+", encoding="utf-8") as handle:
        text = handle.read().replace(old, new)
        handle.seek(0)
        handle.write(text)
        handle.truncate()
    assert store.location.memories_dir.stat().st_mtime_ns == folder_time


@pytest.fixture
def settled(open_store: Callable[..., OpenStore]) -> Iterator[tuple[MemoryStore, str]]:
    """A project store of three memories in a settled folder, and the id of one on app.py."""
    store = open_store().store
    target = remember(store, "Retry the flaky handshake twice", files=["src/app.py"])
    remember(store, "Prefer tabs in the guide", category="pref", files=["docs/guide.md"])
    remember(store, "Util helpers stay pure", category="decision", files=["src/util.py"])
    settle_folder(store)
    yield store, target


def deferred(open_store: Callable[..., OpenStore]) -> MemoryStore:
    """A fresh store of the same repository whose first opening defers its folder check."""
    store = open_store().store
    store.defer_first_check()
    assert store.conn is not None
    return store


def test_the_check_of_a_large_settled_folder_runs_aside_and_finds_it_as_indexed(
    settled: tuple[MemoryStore, str], open_store: Callable[..., OpenStore], any_size: None
) -> None:
    store = deferred(open_store)
    assert store.last_sync is not None and store.last_sync.pending is not None
    assert store.settle() is False
    assert store.settle() is False  # asked once: nothing left running


def test_an_edit_in_place_found_by_the_deferred_check_is_synced_when_settled(
    settled: tuple[MemoryStore, str], open_store: Callable[..., OpenStore], any_size: None
) -> None:
    _, target = settled
    edit_in_place(settled[0], target, "flaky handshake", "flaky greeting")
    store = deferred(open_store)
    assert store.settle() is True
    assert store.get(target).summary == "Retry the flaky greeting twice"


def test_a_one_shot_recall_is_ranked_again_on_a_file_changed_under_the_index(
    settled: tuple[MemoryStore, str], open_store: Callable[..., OpenStore], any_size: None
) -> None:
    _, target = settled
    edit_in_place(settled[0], target, "Retry the flaky handshake twice", "Backoff doubles")
    store = open_store().store
    recaller = build_recaller([store], store, notice=lambda _: None, short_lived=True)
    result = recaller.recall(RecallQuery((Touch("src/app.py", "edit"),), "backoff doubles"))
    assert [(h.memory.id, h.memory.summary) for h in result.hits][:1] == [
        (target, "Backoff doubles")
    ]


def test_a_write_before_the_verdict_waits_for_it_so_the_edit_is_indexed_too(
    settled: tuple[MemoryStore, str], open_store: Callable[..., OpenStore], any_size: None
) -> None:
    _, target = settled
    edit_in_place(settled[0], target, "flaky handshake", "flaky greeting")
    store = deferred(open_store)
    added = remember(store, "A new note", files=["src/app.py"])
    summaries = {m.id: m.summary for m in store.list(status="all")}
    assert summaries[target] == "Retry the flaky greeting twice"
    assert summaries[added] == "A new note"


def test_a_store_closed_before_the_verdict_leaves_the_edit_to_the_next_opening(
    settled: tuple[MemoryStore, str], open_store: Callable[..., OpenStore], any_size: None
) -> None:
    _, target = settled
    edit_in_place(settled[0], target, "flaky handshake", "flaky greeting")
    store = deferred(open_store)
    store.close()
    assert open_store().store.get(target).summary == "Retry the flaky greeting twice"


def test_a_change_synced_by_another_process_before_the_verdict_still_counts_as_one(
    settled: tuple[MemoryStore, str], open_store: Callable[..., OpenStore], any_size: None
) -> None:
    # What was read before the verdict came from the index before the edit, whoever synced it
    # since: the recall must be ranked again.
    _, target = settled
    edit_in_place(settled[0], target, "flaky handshake", "flaky greeting")
    store = deferred(open_store)
    other = open_store().store  # another process syncs it meanwhile
    assert other.conn is not None and other.last_sync is not None
    assert other.last_sync.changed == 1
    assert store.settle() is True
    assert store.get(target).summary == "Retry the flaky greeting twice"


def test_a_busy_index_met_after_the_verdict_is_served_as_at_any_opening(
    settled: tuple[MemoryStore, str], open_store: Callable[..., OpenStore], any_size: None
) -> None:
    # A hook's store waits for another writer a moment, then serves a copy of the index; the
    # sync a changed folder needs must not turn that into a failure.
    _, target = settled
    edit_in_place(settled[0], target, "flaky handshake", "flaky greeting")
    store = open_store().store
    store.wait = 0.05
    store.defer_first_check()
    assert store.conn is not None
    with writer_lock(store.location.lock_path):
        assert store.settle() is True
        assert store.read_only is not None and "busy" in store.read_only
    assert open_store().store.get(target).summary == "Retry the flaky greeting twice"


def children() -> list[str]:
    """The pids of this process's children, reaped or not (Linux)."""
    pid = os.getpid()
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()


def test_an_index_replaced_while_its_check_runs_leaves_no_child_behind(
    settled: tuple[MemoryStore, str], open_store: Callable[..., OpenStore], any_size: None
) -> None:
    store = deferred(open_store)
    assert children()
    open_store().store.reindex()  # another process swaps the index file
    assert store.conn is not None  # opened again on the new file, checked there
    assert children() == []
    assert store.settle() is False


def test_a_process_that_keeps_its_checks_never_forks_for_one(
    settled: tuple[MemoryStore, str],
    open_store: Callable[..., OpenStore],
    any_size: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(deferred_check, "_ALLOWED", [True])
    deferred_check.keep_checks_here()  # as the warm engine does when it starts
    store = deferred(open_store)
    assert store.last_sync is not None and store.last_sync.pending is None
    assert children() == []


def test_the_prompt_hook_checks_its_folder_beside_the_ranking_and_shows_the_edit(
    settled: tuple[MemoryStore, str],
    repo: Path,
    any_size: None,
    forks: list[int],
) -> None:
    # The hook counts the turn (a per-user row) before it ranks; the project store's check of
    # the memory files still runs in a child, and the ranking is done again on the edit.
    from recall.hooks.events import on_prompt
    from recall.hooks.input import parse_input

    _, target = settled
    edit_in_place(settled[0], target, "Retry the flaky handshake twice", "Backoff doubles")
    raw = {"session_id": "prompt-1", "cwd": str(repo), "prompt": "backoff doubles"}
    shown = on_prompt(parse_input(json.dumps(raw), "prompt"))
    assert "Backoff doubles" in shown and "flaky handshake" not in shown
    assert forks == [os.getpid()]
    assert children() == []


def test_a_recall_batch_checks_its_folder_beside_its_first_line_and_answers_the_edit(
    settled: tuple[MemoryStore, str],
    repo: Path,
    tmp_path: Path,
    any_size: None,
    forks: list[int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A batch keeps one engine for all its lines; its first line is ranked while a child
    # checks the folder, and ranked again on the edit the check found.
    from recall.cli.main import main

    _, target = settled
    edit_in_place(settled[0], target, "Retry the flaky handshake twice", "Backoff doubles")
    monkeypatch.chdir(repo)
    lines = tmp_path / "queries.jsonl"
    query = {"prompt": "backoff doubles", "files": ["src/app.py"]}
    lines.write_text(f"{json.dumps(query)}\n{json.dumps(query)}\n", encoding="utf-8")
    assert main(["recall", "--batch", str(lines), "--json", "--no-record"]) == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for answer in answers:
        assert [(h["id"], h["summary"]) for h in answer["results"]][:1] == [
            (target, "Backoff doubles")
        ]
    assert len(answers) == 2 and forks == [os.getpid()]
    assert children() == []


def test_a_small_folder_or_a_process_with_threads_is_checked_in_place(
    settled: tuple[MemoryStore, str],
    open_store: Callable[..., OpenStore],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert deferred_check.DEFER_MIN_FILES == 4_096
    small = deferred(open_store)
    assert small.last_sync is not None and small.last_sync.pending is None

    monkeypatch.setattr(deferred_check, "DEFER_MIN_FILES", 1)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        threaded = deferred(open_store)
        assert threaded.last_sync is not None and threaded.last_sync.pending is None
    finally:
        stop.set()
        other.join()


def test_tether_inject_on_a_large_store_answers_from_a_file_edited_in_place(
    repo: Path, tmp_path: Path, open_store: Callable[..., OpenStore]
) -> None:
    lines = [
        {"summary": f"Note {n} on the parser", "category": "context", "files": ["src/util.py"]}
        for n in range(deferred_check.DEFER_MIN_FILES)
    ]
    target_line = {"summary": "Retry the flaky handshake twice", "category": "gotcha"}
    lines.append({**target_line, "files": ["src/app.py"]})
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    assert run_tether("import", str(path), cwd=repo).code == 0
    store = open_store().store
    settle_folder(store)
    [target] = [m.id for m in store.list(file="src/app.py")]
    edit_in_place(store, target, "Retry the flaky handshake twice", "Backoff doubles")

    done = run_tether("inject", "--no-record", "--json", "backoff doubles", cwd=repo)
    assert done.code == 0, done.stderr
    assert [(h["id"], h["summary"]) for h in done.json()["results"]][:1] == [
        (target, "Backoff doubles")
    ]
    assert done.stderr == ""
