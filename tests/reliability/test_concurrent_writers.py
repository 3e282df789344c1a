"""Two CLI processes and two in-process writers on one store at once, for a bounded time.

Each CLI driver loops ``remember`` / ``pin`` / ``supersede`` / ``recall --no-record`` through
real ``python -m recall`` subprocesses; each in-process writer is a separate
:mod:`multiprocessing` process using :class:`MemoryStore` directly (remember, pin, supersede,
list). Afterwards every write any of them reported must be present exactly once as a memory file
and exactly once as an index row (read with plain SQLite, without a re-sync), pins and
supersessions must have stuck, and no stderr may mention ``database is locked``.
Run with ``-s`` to print the figures.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from recall import frontmatter
from recall.locations import project_location
from recall.store import MemoryStore

DURATION_S = 5.0


@dataclass
class Log:
    """What one writer reported: created ids, pinned ids, (old, new) supersessions, errors."""

    created: list[str] = field(default_factory=list)
    pinned: list[str] = field(default_factory=list)
    superseded: list[tuple[str, str]] = field(default_factory=list)
    recalls: int = 0
    attempts: int = 0
    errors: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recall", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=dict(os.environ),
        timeout=60,
        check=False,
    )


def cli_driver(repo: Path, tag: str, deadline: float, log: Log) -> None:
    """Loop the CLI until ``deadline``, recording every write it reports as done."""
    i = 0
    while time.monotonic() < deadline:
        i += 1
        step = i % 4
        own_active = [c for c in log.created if c not in {old for old, _ in log.superseded}]
        if step == 2 and own_active:
            done = _cli(repo, "pin", "--json", own_active[-1])
            action = ("pin", own_active[-1], "")
        elif step == 3 and own_active:
            target = own_active[0]
            done = _cli(
                repo,
                "supersede",
                "--json",
                target,
                "-c",
                "decision",
                "-f",
                "src/util.py",
                f"{tag} replaces {target} at {i}",
            )
            action = ("supersede", target, "")
        elif step == 0:
            done = _cli(repo, "recall", "--json", "--file", "src/app.py", "--no-record")
            action = ("recall", "", "")
        else:
            done = _cli(
                repo,
                "remember",
                "--json",
                "-c",
                "gotcha",
                "-f",
                "src/app.py",
                f"{tag} cli memory {i}",
            )
            action = ("remember", "", "")
        log.attempts += action[0] != "recall"
        log.stderr.append(done.stderr)
        if done.returncode != 0:
            log.errors.append(f"{action[0]} exit {done.returncode}: {done.stderr.strip()}")
            continue
        out = json.loads(done.stdout)
        if action[0] == "remember":
            log.created.append(out["id"])
        elif action[0] == "pin":
            log.pinned.append(action[1])
        elif action[0] == "supersede":
            log.created.append(out["id"])
            log.superseded.append((action[1], out["id"]))
        else:
            log.recalls += 1


def store_writer(repo: str, tag: str, deadline: float, out_path: str) -> None:
    """A writer in its own process: the store API directly; results go to ``out_path``."""
    log = Log()
    store = MemoryStore(project_location(Path(repo)), notice=lambda m: log.stderr.append(m))
    i = 0
    try:
        while time.monotonic() < deadline:
            i += 1
            own_active = [c for c in log.created if c not in {old for old, _ in log.superseded}]
            if i % 4 == 2 and own_active:
                log.attempts += 1
                store.set_pinned(own_active[-1], True)
                log.pinned.append(own_active[-1])
            elif i % 4 == 3 and own_active:
                log.attempts += 1
                draft = store.prepare_memory(
                    summary=f"{tag} replaces {own_active[0]} at {i}",
                    category="decision",
                    files=["src/util.py"],
                )
                result, _old = store.supersede(own_active[0], draft)
                log.created.append(result.id)
                log.superseded.append((own_active[0], result.id))
            elif i % 4 == 0:
                store.list(file="src/app.py")
                log.recalls += 1
            else:
                log.attempts += 1
                draft = store.prepare_memory(
                    summary=f"{tag} store memory {i}", category="gotcha", files=["src/app.py"]
                )
                log.created.append(store.remember(draft).id)
    except Exception:  # reported to the test, which fails on it
        log.errors.append(traceback.format_exc())
    finally:
        store.close()
    Path(out_path).write_text(json.dumps(log.__dict__), encoding="utf-8")


def test_cli_and_store_writers_at_once_lose_and_double_nothing(repo: Path, tmp_path: Path) -> None:
    deadline = time.monotonic() + DURATION_S + 1.0  # +1 s for the processes to start
    context = multiprocessing.get_context("fork")  # forked before any thread of this test
    outs = [tmp_path / f"writer-{n}.json" for n in range(2)]
    procs = [
        context.Process(target=store_writer, args=(str(repo), f"w{n}", deadline, str(outs[n])))
        for n in range(2)
    ]
    for proc in procs:
        proc.start()
    cli_logs = [Log(), Log()]
    threads = [
        threading.Thread(target=cli_driver, args=(repo, f"c{n}", deadline, cli_logs[n]))
        for n in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    for proc in procs:
        proc.join(timeout=90)
        assert proc.exitcode == 0
    logs = cli_logs + [Log(**json.loads(p.read_text(encoding="utf-8"))) for p in outs]

    for log in logs:
        assert log.errors == []
        for err in log.stderr:
            assert "database is locked" not in err.lower(), err

    created = [i for log in logs for i in log.created]
    pinned = {i for log in logs for i in log.pinned}
    superseded = {old: new for log in logs for old, new in log.superseded}
    assert len(created) == len(set(created)), "an id was reported twice"

    memories_dir = repo / ".tether" / "memories"
    file_ids: Counter[str] = Counter()
    fields_by_id: dict[str, dict[str, object]] = {}
    for path in memories_dir.glob("*.md"):
        parsed = frontmatter.parse(path.read_text(encoding="utf-8"), path)
        memory_id = str(parsed.fields["id"])
        file_ids[memory_id] += 1
        fields_by_id[memory_id] = parsed.fields
    with sqlite3.connect(repo / ".tether" / "index.db") as conn:
        row_ids = Counter(r[0] for r in conn.execute("SELECT id FROM memories"))
        pinned_rows = {r[0] for r in conn.execute("SELECT id FROM memories WHERE pinned")}

    for memory_id in created:
        assert file_ids[memory_id] == 1, f"{memory_id}: {file_ids[memory_id]} files"
        assert row_ids[memory_id] == 1, f"{memory_id}: {row_ids[memory_id]} index rows"
    assert set(file_ids) == set(created) == set(row_ids), "unreported memories appeared"
    for memory_id in pinned:
        assert fields_by_id[memory_id].get("pinned") is True, f"pin of {memory_id} was lost"
        assert memory_id in pinned_rows, f"pin of {memory_id} missing from the index"
    for old, new in superseded.items():
        assert fields_by_id[old].get("status") == "superseded", old
        assert fields_by_id[old].get("superseded_by") == new, old
        assert fields_by_id[new].get("supersedes") == old, new

    print(
        f"\n[concurrent] writes attempted={sum(log.attempts for log in logs)} "
        f"memories reported={len(created)} present as one file={len(created)} "
        f"present as one index row={len(created)} pins={len(pinned)} "
        f"supersessions={len(superseded)} recalls={sum(log.recalls for log in logs)} "
        f"per writer={[len(log.created) for log in logs]}"
    )
    assert all(log.created for log in logs), "a writer never got a write in"
