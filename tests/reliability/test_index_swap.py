"""A reindex swaps in a new index file; processes that had the old one open follow it.

- A long-lived store (as in the language server or the MCP server) writes a memory after
  another process ran ``tether reindex``: the write is in the index now at the path. So do the
  real ``tether mcp`` (``memory_write``, ``memory_pin``) and ``tether lsp``
  (``tether.remember``, ``tether.pin``), their acted counts included.
- It reads counts another process made after the reindex (it reads the new index too).
- A reindex refused for want of room leaves the old index, counts and all, in place.
- Acted counts made while a reindex loop runs are all kept: from ``tether show`` processes
  (each opens the index, counts, exits) and from a long-lived store counting in a tight loop.
"""

from __future__ import annotations

import asyncio
import json
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import remember

from recall.index import db
from recall.policy.usage import counters, record_action
from recall.store import MemoryStore
from tests.mcp.harness import call, mcp_client
from tests.reliability.procs import run_cli
from tests.reliability.server_writers import ANSWER_TIMEOUT_S, TETHER
from tests.reliability.surface_loops import Tally
from tests.reliability.wire import Wire

LOOPS = Path(__file__).with_name("surface_loops.py")
LOOP_S = 5.0
"""How long the counters race the reindex loop: on a loaded 2-core machine, several reindexes
and dozens of counts; short enough for ``make test``."""
FINISH_TIMEOUT_S = 180.0
"""A bound on a loop finishing its last call after the time is up."""


def _raw(repo: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    """Rows read from the index file now at the path, with no sync and no store."""
    with sqlite3.connect(repo / ".tether" / "index.db") as conn:
        return conn.execute(sql, args).fetchall()


def _acted(repo: Path, memory_id: str) -> int:
    found = _raw(repo, "SELECT acted FROM usage WHERE memory_id = ?", memory_id)
    return int(found[0][0]) if found else 0  # type: ignore[call-overload]


def start_loop(repo: Path, kind: str, seconds: float, out: Path, arg: str = "") -> subprocess.Popen:
    """Start ``surface_loops.py`` for ``kind`` (see its docstring)."""
    return subprocess.Popen(
        [sys.executable, str(LOOPS), str(repo), kind, str(seconds), str(out), arg],
        stderr=subprocess.PIPE,
    )


def finish_loop(proc: subprocess.Popen, out: Path) -> Tally:
    """Wait for a loop; its tally (the loop itself must end cleanly)."""
    _out, err = proc.communicate(timeout=FINISH_TIMEOUT_S)
    assert proc.returncode == 0, err.decode(errors="replace")
    return Tally(**json.loads(out.read_text(encoding="utf-8")))


def test_a_long_lived_store_writes_into_the_index_a_reindex_put_in_place(
    repo: Path, store: MemoryStore
) -> None:
    before = remember(store, "written before the reindex")
    done = run_cli(repo, "reindex")
    assert done.returncode == 0, done.stderr
    after = remember(store, "written after another process reindexed")
    ids = {row[0] for row in _raw(repo, "SELECT id FROM memories")}
    assert {before, after} <= ids
    assert not db.replaced(store.conn)


def test_a_long_lived_store_reads_counts_made_after_a_reindex(
    repo: Path, store: MemoryStore
) -> None:
    memory_id = remember(store, "shown by another process")
    assert counters(store.conn, memory_id)["acted"] == 0
    assert run_cli(repo, "reindex").returncode == 0
    shown = run_cli(repo, "show", "--json", memory_id)
    assert shown.returncode == 0, shown.stderr
    assert counters(store.conn, memory_id)["acted"] == 1


def test_a_count_waiting_on_the_old_file_lands_in_the_new_one(
    repo: Path, store: MemoryStore
) -> None:
    memory_id = remember(store, "counted across the swap")
    old = store.conn
    assert run_cli(repo, "reindex").returncode == 0
    record_action(old, memory_id)  # a caller still holding the old connection
    assert _acted(repo, memory_id) == 1


def test_no_acted_count_is_lost_to_a_reindex_loop(
    repo: Path, store: MemoryStore, tmp_path: Path
) -> None:
    by_show = remember(store, "shown by tether show in a loop")
    by_loop = remember(store, "counted by a long-lived store in a loop")
    reindexer = start_loop(repo, "reindex", LOOP_S, tmp_path / "reindex.json")
    shower = start_loop(repo, "show", LOOP_S, tmp_path / "show.json", by_show)
    counted = 0
    deadline = time.monotonic() + LOOP_S
    while time.monotonic() < deadline:
        record_action(store.conn, by_loop)  # as the language server counts a hover
        counted += 1
        time.sleep(0.005)
    reindexes = finish_loop(reindexer, tmp_path / "reindex.json")
    shows = finish_loop(shower, tmp_path / "show.json")
    print(
        f"\n[reindex loop] reindexes={reindexes.ok} shows={shows.ok} "
        f"in-process counts={counted}; acted: shown={_acted(repo, by_show)} "
        f"looped={_acted(repo, by_loop)}"
    )
    assert reindexes.errors == [] and shows.errors == []
    assert not any("Traceback" in t for t in [*reindexes.texts, *shows.texts])
    assert reindexes.ok >= 1, "the reindex loop never overlapped the counters"
    assert shows.ok >= 1
    assert _acted(repo, by_show) == shows.ok
    assert _acted(repo, by_loop) == counted
    assert counters(store.conn, by_loop)["acted"] == counted


@pytest.mark.asyncio
async def test_the_mcp_server_writes_and_counts_into_the_reindexed_index(
    repo: Path, store: MemoryStore
) -> None:
    remember(store, "the store exists before the server starts")
    store.close()
    async with mcp_client(repo) as client:
        first = await call(
            client, "memory_write", summary="mcp before", category="gotcha", files=["src/app.py"]
        )
        done = await asyncio.to_thread(run_cli, repo, "reindex")
        assert done.returncode == 0, done.stderr
        second = await call(
            client, "memory_write", summary="mcp after", category="gotcha", files=["src/app.py"]
        )
        await call(client, "memory_pin", id=first["id"])
    ids = {row[0] for row in _raw(repo, "SELECT id FROM memories")}
    assert {first["id"], second["id"]} <= ids
    assert _acted(repo, first["id"]) == 1


def _lsp_command(wire: Wire, command: str, arguments: dict[str, object]) -> dict[str, object]:
    answer = wire.request(
        "workspace/executeCommand",
        {"command": command, "arguments": [arguments]},
        ANSWER_TIMEOUT_S,
    )
    assert isinstance(answer.get("result"), dict), answer
    return answer["result"]


def test_the_language_server_writes_and_counts_into_the_reindexed_index(
    repo: Path, tmp_path: Path, store: MemoryStore
) -> None:
    remember(store, "the store exists before the server starts")
    store.close()
    uri = (repo / "src" / "app.py").as_uri()
    wire = Wire([*TETHER, "lsp"], repo, tmp_path / "lsp-stderr.txt")
    try:
        wire.initialize(repo)
        new = {"uri": uri, "category": "gotcha"}
        first = _lsp_command(wire, "tether.remember", {**new, "summary": "lsp before"})
        assert run_cli(repo, "reindex").returncode == 0
        second = _lsp_command(wire, "tether.remember", {**new, "summary": "lsp after"})
        _lsp_command(wire, "tether.pin", {"memoryId": first["id"]})
    finally:
        wire.close()
    ids = {row[0] for row in _raw(repo, "SELECT id FROM memories")}
    assert {first["id"], second["id"]} <= ids
    assert _acted(repo, str(first["id"])) == 1


REFUSING_LIMIT = 4096
"""A file size limit (bytes) the old index is already past and a new one cannot stay under:
the rebuild fails at its first pages, the old index is only read."""


def test_a_reindex_refused_for_room_leaves_the_old_index_and_its_counts(
    repo: Path, store: MemoryStore
) -> None:
    memory_id = remember(store, "counted before a reindex that runs out of room")
    record_action(store.conn, memory_id)
    store.close()
    index = repo / ".tether" / "index.db"
    assert index.stat().st_size > REFUSING_LIMIT
    before = index.stat().st_ino

    def no_room() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (REFUSING_LIMIT, REFUSING_LIMIT))

    done = run_cli(repo, "reindex", preexec=no_room)
    assert done.returncode == 3, done.stderr
    assert "free some space" in done.stderr and "Traceback" not in done.stderr
    assert index.stat().st_ino == before  # the same file, untouched
    assert _acted(repo, memory_id) == 1
    assert sorted(p.name for p in index.parent.glob("index.db-rebuild*")) == []


def test_the_swapped_in_file_holds_the_whole_index_without_a_wal(
    repo: Path, store: MemoryStore
) -> None:
    ids = {remember(store, f"memory {i} before the reindex") for i in range(20)}
    record_action(store.conn, min(ids))
    store.reindex()
    index = repo / ".tether" / "index.db"
    # immutable=1 reads the file alone, as it was renamed into place: no WAL is looked at.
    with sqlite3.connect(f"{index.as_uri()}?immutable=1", uri=True) as conn:
        assert {row[0] for row in conn.execute("SELECT id FROM memories")} == ids
        acted = conn.execute("SELECT acted FROM usage WHERE memory_id = ?", (min(ids),))
        assert acted.fetchone() == (1,)
    assert sorted(p.name for p in index.parent.glob("index.db-rebuild*")) == []
