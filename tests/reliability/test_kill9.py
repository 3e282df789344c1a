"""``kill -9`` at varied points of ``remember``, ``supersede``, ``reindex`` and ``index``.

Each command runs as a real ``python -m recall`` subprocess in a temp git repository and gets
SIGKILL after a delay spread evenly from 0.2x to 1.2x the command's measured uncontended runtime
(start-up alone takes ~250 ms, so fixed 0-150 ms delays would only ever hit the imports; this
spread lands kills in argument parsing, the file write and the index update too). After every kill
a fresh :class:`MemoryStore` must open the store without any manual step: no empty or
unparseable memory file, no load problems, ``list`` works, one index row per memory file, and no
leftover temp file counted as a memory. Run with ``-s`` to print the figures.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import remember

from recall import frontmatter
from recall.locations import project_location
from recall.records import memory_from_parsed
from recall.store import MemoryStore

RUNS = 20
MIN_RUNS = 9
TIME_BUDGET_S = 12.0  # per command: fewer runs, spread over the same delays, when each is slow


def _runs_within_budget(baseline_s: float) -> int:
    """How many runs fit the budget: a run waits 0.7x the baseline on average, plus the store
    check after it. A slow machine gets fewer runs with the same spread of delays, rather than
    the early runs of the spread alone (so a third of the runs still land mid-command)."""
    fitting = int(TIME_BUDGET_S / (0.7 * baseline_s + 0.1))
    return max(MIN_RUNS, min(RUNS, fitting))


def _argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "recall", *args]


def _run_and_kill(argv: list[str], cwd: Path, delay_s: float) -> bool:
    """Start ``argv``; SIGKILL it after ``delay_s``. True when the kill hit a live process."""
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ
    )
    time.sleep(delay_s)
    killed = proc.poll() is None
    if killed:
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    return killed


def _timed(argvs: list[list[str]], cwd: Path) -> float:
    """The fastest uncontended run of ``argvs`` (the first is often slowed by a cold cache)."""
    times = []
    for argv in argvs:
        start = time.monotonic()
        subprocess.run(argv, cwd=cwd, capture_output=True, check=True, env=os.environ, timeout=60)
        times.append(time.monotonic() - start)
    return min(times)


def check_store(repo: Path) -> int:
    """Assert the store is whole after a crash; return how many memories it holds."""
    memories_dir = repo / ".tether" / "memories"
    names = sorted(os.listdir(memories_dir)) if memories_dir.is_dir() else []
    md_files = [n for n in names if n.endswith(".md") and not n.startswith(".")]
    for name in md_files:
        raw = (memories_dir / name).read_text(encoding="utf-8")
        assert raw.strip(), f"empty memory file {name}"
        parsed = frontmatter.parse(raw, memories_dir / name)
        memory_from_parsed(parsed, memories_dir / name, fallback_created="2026-01-01T00:00:00Z")
    store = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        assert store.problems() == []
        listed = store.list(status="all")
        assert len({m.id for m in listed}) == len(listed)
        assert store.count() == len(md_files) == len(listed)
        for memory in listed:
            file_name = store.file_name_of(memory.id)
            assert not file_name.startswith("."), f"temp file {file_name} taken for a memory"
            assert file_name in md_files
    finally:
        store.close()
    return len(md_files)


def _kill_loop(
    repo: Path, name: str, make_argv: Callable[[int], list[str]], baseline_s: float
) -> None:
    killed = finished = temps_seen = 0
    start_count = check_store(repo)
    runs = _runs_within_budget(baseline_s)
    for i in range(runs):
        delay = baseline_s * (0.2 + i / (runs - 1))
        if _run_and_kill(make_argv(i), repo, delay):
            killed += 1
        else:
            finished += 1
        held = check_store(repo)
        memories_dir = repo / ".tether" / "memories"
        if memories_dir.is_dir():
            temps_seen += sum(n.startswith(".tmp-") for n in os.listdir(memories_dir))
    print(
        f"\n[kill9] {name}: runs={killed + finished} killed_mid_run={killed} "
        f"finished_before_kill={finished} checks_passed={killed + finished} "
        f"baseline={baseline_s * 1000:.0f}ms memories_before={start_count} memories_after={held} "
        f"temp_files_seen_after_kills={temps_seen}"
    )
    assert killed >= runs // 3, f"only {killed} of {runs} kills landed on a live {name}"


def test_kill9_remember(repo: Path) -> None:
    baseline = _timed(
        [_argv("remember", "-c", "gotcha", "-f", "src/app.py", f"baseline {k}") for k in (1, 2)],
        repo,
    )

    def argv(i: int) -> list[str]:
        return _argv("remember", "-c", "gotcha", "-f", "src/app.py", f"kill run {i}")

    _kill_loop(repo, "remember", argv, baseline)


def test_kill9_supersede(repo: Path, store: MemoryStore) -> None:
    olds = [remember(store, f"old memory {i}") for i in range(RUNS + 2)]
    store.close()
    baseline = _timed(
        [
            _argv("supersede", olds[k], "-c", "gotcha", "-f", "src/app.py", f"baseline {k}")
            for k in (RUNS, RUNS + 1)
        ],
        repo,
    )

    def argv(i: int) -> list[str]:
        return _argv("supersede", olds[i], "-c", "gotcha", "-f", "src/util.py", f"new {i}")

    _kill_loop(repo, "supersede", argv, baseline)
    # A half-done supersede must never leave the old memory superseded without its successor.
    fresh = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        ids = {m.id for m in fresh.list(status="all")}
        for memory in fresh.list(status="superseded"):
            assert memory.superseded_by in ids, f"{memory.id} points to a missing successor"
        by_id = {m.id: m for m in fresh.list(status="all")}
        half_done = [
            m.id for m in by_id.values() if m.supersedes and by_id[m.supersedes].status == "active"
        ]
        print(f"[kill9] supersede: successors whose predecessor is still active={len(half_done)}")
    finally:
        fresh.close()


@pytest.mark.parametrize("command", ["reindex", "index"])
def test_kill9_reindex_and_index(repo: Path, store: MemoryStore, command: str) -> None:
    for i in range(30):
        remember(store, f"seed memory {i}", files=["src/app.py", "src/util.py"])
    store.close()
    baseline = _timed([_argv(command), _argv(command)], repo)
    _kill_loop(repo, command, lambda _i: _argv(command), baseline)
    assert check_store(repo) == 30
    done = subprocess.run(
        _argv(command), cwd=repo, capture_output=True, text=True, env=os.environ, timeout=60
    )
    assert done.returncode == 0, done.stderr
