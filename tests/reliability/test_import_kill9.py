"""``kill -9`` in the middle of ``tether import``, then the same import again.

An import writes its memory files one by one, then indexes them in one transaction. A hard
kill can land anywhere in that, leaving part of the file's memories written; nothing can be
said at that moment, so the design is that running the same import again completes it: the
memories already written are found by their content and skipped, so none is written twice,
and the re-run says how many of its lines were already there.

Each case starts ``tether import`` on a file of :data:`LINES` memories (some with ids, some
without), waits until a given share of the memory files exist, sends SIGKILL, then re-runs the
import to the end and checks: exit 0; its summary counts the memories it wrote and those
already present, adding up to every line; every line's memory present exactly once as a file
and once as an index row; a third run writes nothing.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from recall.locations import project_location
from recall.store import MemoryStore
from tests.reliability.procs import run_cli

LINES = 1500
"""Memories in the imported file: enough that writing their files takes a while even once bulk
import is faster, so the kill lands among them."""
POLL_S = 0.002
"""How long the import runs between two counts of its folder while waiting to kill."""
START_TIMEOUT_S = 120.0
"""A bound on the import writing its first files on a loaded machine."""


def _records() -> list[dict[str, object]]:
    records: list[dict[str, object]] = []
    for i in range(LINES):
        record: dict[str, object] = {
            "summary": f"imported memory number {i} about the connection pool",
            "category": ("gotcha", "decision", "context", "pref")[i % 4],
            "files": ["src/app.py"] if i % 2 else ["src/util.py", "docs/guide.md"],
        }
        if i % 3 == 0:
            record["id"] = f"{0xA0000000 + i:08x}"
        if i % 5 == 0:
            record["details"] = f"details of {i}\nsecond line"
        records.append(record)
    return records


def _memory_files(repo: Path) -> list[Path]:
    folder = repo / ".tether" / "memories"
    if not folder.is_dir():
        return []
    return [p for p in folder.iterdir() if p.suffix == ".md" and not p.name.startswith(".")]


def _kill_when(repo: Path, source: Path, share: float) -> int:
    """Start the import; SIGKILL it once ``share`` of the lines have a file. Return how many
    memory files there were when the kill landed (asserting it landed mid-way).

    The import runs in short steps: it is stopped (SIGSTOP, waited on until stopped) while its
    files are counted, and only let go for :data:`POLL_S` at a time, at the lowest priority.
    Counting a folder of a thousand files while the import ran freely once let a fast import
    finish between two counts."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "recall", "import", str(source)],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ,
        preexec_fn=lambda: os.nice(19),
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while True:
            proc.send_signal(signal.SIGSTOP)
            _, status = os.waitpid(proc.pid, os.WUNTRACED)
            assert os.WIFSTOPPED(status), "the import ended before the kill"
            if len(_memory_files(repo)) >= share * LINES:
                break
            assert time.monotonic() < deadline, "the import wrote too few files in time"
            proc.send_signal(signal.SIGCONT)
            time.sleep(POLL_S)
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return len(_memory_files(repo))


def _index_ids(repo: Path) -> Counter[str]:
    with sqlite3.connect(repo / ".tether" / "index.db") as conn:
        return Counter(row[0] for row in conn.execute("SELECT id FROM memories"))


@pytest.mark.parametrize("share", [0.2, 0.8])
def test_an_import_killed_midway_is_completed_by_running_it_again(
    repo: Path, tmp_path: Path, share: float
) -> None:
    records = _records()
    source = tmp_path / "memories.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    left = _kill_when(repo, source, share)
    assert 0 < left < LINES or len(_index_ids(repo)) < LINES, "the kill did not land mid-way"

    again = run_cli(repo, "import", str(source), timeout=600)
    assert again.returncode == 0, again.stderr
    created = LINES - left
    print(f"\n[import kill9] share={share}: files after the kill={left}; re-run: {again.stdout}")
    noun = "memory" if created == 1 else "memories"
    assert f"Imported {created} {noun}, {left} already known, 0 rejected" in again.stdout
    if left:
        assert (
            f"{left} of them were in the store before this run (imported earlier, or by an "
            "import that was stopped midway); none was written twice"
        ) in again.stdout

    files = _memory_files(repo)
    assert len(files) == LINES
    ids = _index_ids(repo)
    assert len(ids) == LINES and set(ids.values()) == {1}
    store = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        assert store.problems() == []
        by_summary = Counter(m.summary for m in store.list(status="all"))
        memories = {m.id: m for m in store.list(status="all")}
    finally:
        store.close()
    assert by_summary == Counter(str(r["summary"]) for r in records)
    for record in records:
        if "id" in record:  # a wanted id is kept, whichever run wrote the memory
            assert memories[str(record["id"])].summary == record["summary"]

    third = run_cli(repo, "import", "--json", str(source), timeout=600)
    assert third.returncode == 0, third.stderr
    assert {json.loads(line)["status"] for line in third.stdout.splitlines()} == {"duplicate"}
