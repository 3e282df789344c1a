"""Ctrl-C while a bulk import commits.

The batch's rows commit in one statement after every file is written. Python runs its Ctrl-C
handler only once SQLite hands back control, so an interrupt that came during the COMMIT was
raised after it, inside the import's clean-up: the rows stayed committed and their files were
deleted, and as the folder then matched its fingerprint from before the import again, every
later open listed memories that had no file. The import now either ends whole or is
interrupted before its commit, never between.

The interrupt is a real SIGINT to this process, sent by a thread the moment SQLite starts the
batch's COMMIT (SQLite's own statement trace says when).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import threading
from pathlib import Path

from recall.importer import import_lines
from recall.locations import project_location
from recall.store import MemoryStore

LINES = 3000
"""Memories in the batch: enough that its COMMIT takes milliseconds, so the signal lands
inside it."""


def _interrupt_at_commit(conn: sqlite3.Connection) -> threading.Thread:
    """A thread that sends SIGINT to this process once ``conn`` begins the batch's COMMIT
    (the first COMMIT after the batch enlarged its page cache)."""
    began = threading.Event()
    armed: list[bool] = []

    def trace(sql: str) -> None:
        if sql.startswith("PRAGMA cache_size = -"):
            armed.append(True)
        elif armed and sql.strip().upper() == "COMMIT":
            began.set()

    def interrupt() -> None:
        if began.wait(timeout=120):
            os.kill(os.getpid(), signal.SIGINT)

    conn.set_trace_callback(trace)
    thread = threading.Thread(target=interrupt, daemon=True)
    thread.start()
    return thread


def test_ctrl_c_during_the_commit_leaves_every_memory_with_its_file(repo: Path) -> None:
    store = MemoryStore(project_location(repo), notice=lambda message: None)
    normalize = lambda path: path  # noqa: E731
    import_lines(
        store, [json.dumps({"summary": "the first one", "category": "gotcha"})], normalize, "me"
    )
    lines = [
        json.dumps(
            {
                "summary": f"memory number {i} " + "word " * 40,
                "category": "gotcha",
                "details": "x " * 300,
            }
        )
        for i in range(LINES)
    ]
    thread = _interrupt_at_commit(store.conn)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        # raised only once the commit is made: the batch is in all the same
        with contextlib.suppress(KeyboardInterrupt):
            import_lines(store, lines, normalize, "me", draft_elsewhere_from=10**9)
        thread.join(timeout=120)
    finally:
        signal.signal(signal.SIGINT, previous)
        store.conn.set_trace_callback(None)
    store.close()

    files = {p.stem for p in (repo / ".tether" / "memories").glob("*.md")}
    with sqlite3.connect(repo / ".tether" / "index.db") as conn:
        rows = {row[0] for row in conn.execute("SELECT id FROM memories")}
    assert len(files) == LINES + 1, "the batch was not kept whole"
    assert rows == files
    again = MemoryStore(project_location(repo), notice=lambda message: None)
    try:
        assert {m.id for m in again.list(status="all")} == files
        assert again.problems() == []
    finally:
        again.close()
