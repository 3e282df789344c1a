"""Several processes writing one store at once: nothing lost, nothing doubled, never "locked".

Writers are real processes (the in-process API in ``python -c`` scripts, and the CLI); the
index is checked with a plain SQLite connection, without letting a store re-sync it first.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from conftest import OpenStore, remember, run_tether

from recall.index import rows
from recall.memfiles import file_sha
from recall.model import Memory
from recall.records import render_memory
from recall.writer_lock import writer_lock

PER_WRITER = 200

WRITER = """
import sys, time
from pathlib import Path
from recall.locations import project_location
from recall.store import MemoryStore

repo, tag, count, go = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
store = MemoryStore(project_location(repo), notice=lambda m: print(m, file=sys.stderr))
while not go.exists():
    time.sleep(0.001)
for i in range(count):
    draft = store.prepare_memory(
        summary=f"{tag} memory number {i}", category="gotcha", files=[f"src/{tag}/{i % 7}.py"]
    )
    result = store.remember(draft)
    assert result.duplicate_of is None, result
store.close()
"""

READER = """
import sys, time
from pathlib import Path
from recall.locations import project_location
from recall.store import MemoryStore

repo, done = Path(sys.argv[1]), Path(sys.argv[2])
rounds = 0
deadline = time.monotonic() + 120  # never outlive a test that forgot to stop it
while not done.exists() and time.monotonic() < deadline:
    store = MemoryStore(project_location(repo), notice=lambda m: None)
    listed = store.list(status="all")
    assert len(listed) <= 400, len(listed)
    assert len({m.id for m in listed}) == len(listed)
    store.close()
    rounds += 1
print(rounds)
"""


def raw_counts(index: Path) -> dict[str, int]:
    """Row counts of every table that holds memories, read without any sync."""
    with sqlite3.connect(index) as conn:
        return {
            table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("memories", "fts_words", "fts_trigram", "memory_files")
        }


def spawn(script: str, *args: str) -> subprocess.Popen[str]:
    """Start ``python -c script args`` with the test environment."""
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


def finish(process: subprocess.Popen[str], timeout: float = 90) -> tuple[str, str]:
    """Wait for a process; assert it succeeded without lock errors; return its output."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    assert process.returncode == 0, err
    assert "locked" not in err.lower(), err
    return out, err


def test_two_processes_write_200_memories_each(repo: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    writers = [spawn(WRITER, str(repo), tag, str(PER_WRITER), str(go)) for tag in ("left", "right")]
    time.sleep(0.2)  # let both import and wait at the start line
    go.touch()
    try:
        for writer in writers:
            finish(writer)
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
                writer.communicate()

    folder = repo / ".tether" / "memories"
    names = [n for n in os.listdir(folder) if n.endswith(".md")]
    assert len(names) == 2 * PER_WRITER
    assert not [n for n in os.listdir(folder) if n.startswith(".tmp-")]
    counts = raw_counts(repo / ".tether" / "index.db")
    assert counts == {
        "memories": 400,
        "fts_words": 400,
        "fts_trigram": 400,
        "memory_files": 400,
    }
    with sqlite3.connect(repo / ".tether" / "index.db") as conn:
        indexed = {row[0] for row in conn.execute("SELECT name FROM memories")}
        summaries = {row[0] for row in conn.execute("SELECT summary FROM memories")}
    assert indexed == set(names)
    assert summaries == {f"{t} memory number {i}" for t in ("left", "right") for i in range(200)}


def test_concurrent_imports_with_a_reader(repo: Path, tmp_path: Path) -> None:
    for tag in ("a", "b"):
        lines = [
            f'{{"summary": "import {tag} {i}", "category": "context", "files": ["src/app.py"]}}'
            for i in range(PER_WRITER)
        ]
        (tmp_path / f"{tag}.jsonl").write_text("\n".join(lines) + "\n")
    ok = run_tether("init", cwd=repo)
    assert ok.code == 0, ok
    done = tmp_path / "done"
    reader = spawn(READER, str(repo), str(done))
    try:
        importers = [
            subprocess.Popen(
                [sys.executable, "-m", "recall", "import", str(tmp_path / f"{t}.jsonl"), "--json"],
                cwd=repo,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=dict(os.environ),
            )
            for t in ("a", "b")
        ]
        outputs = [importer.communicate(timeout=90) for importer in importers]
    finally:
        done.touch()  # the reader stops even when an importer failed
    rounds, _ = finish(reader)
    created = []
    for importer, (out, err) in zip(importers, outputs, strict=True):
        assert importer.returncode == 0, err
        assert "locked" not in err.lower(), err
        created.extend(line for line in out.splitlines() if '"created"' in line)
    assert int(rounds) >= 1
    assert len(created) == 400
    listed = run_tether("list", "--status", "all", "--scope", "project", "--json", cwd=repo)
    assert len(listed.json()) == 400
    assert raw_counts(repo / ".tether" / "index.db")["memories"] == 400


def test_a_sync_that_waited_for_a_writer_keeps_the_writers_memory(
    open_store: Callable[..., OpenStore],
) -> None:
    """A reader's sync must not act on a folder scan that a writer has since made stale.

    The writer here does what every writer does, by hand so the timing is fixed: it holds the
    writers' lock and the index's write lock while it adds a memory file and its rows. A reader
    that opens meanwhile has to wait; when it goes on, the new memory must still be indexed.
    """
    first = open_store().store
    for i in range(3):
        remember(first, f"existing {i}")
    existing = first.location.memories_dir / f"{first.list()[0].id}.md"
    os.utime(existing, ns=(time.time_ns(), time.time_ns()))  # give the reader work to do
    index = first.location.index_path
    reader, _ = open_store()
    errors: list[BaseException] = []

    def open_reader() -> None:
        try:
            reader.list()
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    with writer_lock(first.location.lock_path):
        writer = sqlite3.connect(index, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")
        thread = threading.Thread(target=open_reader)
        thread.start()
        time.sleep(0.5)  # the reader is now waiting for one of the two locks
        memory = Memory(
            id="0facade0",
            category="gotcha",
            summary="written while the reader waited",
            created="2026-01-01T00:00:00+00:00",
        )
        text = render_memory(memory)
        stat = first.folder.write(f"{memory.id}.md", text, exclusive=True)
        rows.insert_many(writer, [(memory, stat.name, stat, file_sha(text.encode()))])
        writer.execute("COMMIT")
        writer.close()
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert not errors

    assert (first.location.memories_dir / "0facade0.md").exists()
    assert raw_counts(index)["memories"] == 4
    assert reader.find("0facade0") is not None


def test_a_long_lived_store_dedupes_against_another_writer(
    open_store: Callable[..., OpenStore],
) -> None:
    one = open_store().store
    two = open_store().store
    remember(one, "creates the store")
    assert len(two.list()) == 1  # two's index connection is open from here on
    ids = [remember(one, f"shared {i}") for i in range(3)]
    for i, memory_id in enumerate(ids):
        again = two.remember(two.prepare_memory(summary=f"shared {i}", category="gotcha", files=[]))
        assert again.duplicate_of == memory_id
    assert two.count() == 4
