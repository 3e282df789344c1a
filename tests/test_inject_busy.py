"""``tether inject`` while another writer (an import, a reindex) holds the store: an agent
waits on it before each turn, so it waits a moment for the writer, then answers from the index
as last committed and says so, rather than waiting for the writer to finish."""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path

from conftest import run_tether

from recall.cli.cmd_recall import INJECT_BUSY_S
from recall.hooks.events import GUARD_BUSY_MS
from recall.locations import project_location


def test_inject_waits_for_another_writer_as_long_as_the_hooks_do() -> None:
    assert INJECT_BUSY_S == GUARD_BUSY_MS / 1000 == 1.0


def test_inject_answers_while_another_writer_holds_the_store(repo: Path) -> None:
    done = run_tether(
        "remember",
        "login retries stay at three",
        "-c",
        "gotcha",
        "-f",
        "src/app.py",
        "--json",
        cwd=repo,
    )
    assert done.code == 0, done.stderr
    memory = repo / ".tether" / "memories" / f"{done.json()['id']}.md"
    # an edit by hand the index has not seen: reading it needs the writers' lock
    memory.write_text(memory.read_text(encoding="utf-8").replace("three", "3"), encoding="utf-8")
    location = project_location(repo)
    lock = os.open(location.lock_path, os.O_RDWR | os.O_CREAT)
    holder = sqlite3.connect(location.index_path, isolation_level=None)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held until the inject has answered
        holder.execute("BEGIN IMMEDIATE")
        injected = run_tether(
            "inject", "why do login retries fail", cwd=repo, env={"TETHER_WARM": "0"}
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        os.close(lock)
    assert injected.code == 0, injected.stderr
    assert "login retries stay at three" in injected.stdout  # as last committed
    assert "is busy: serving its index as of its last commit" in injected.stderr
