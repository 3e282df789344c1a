"""Writers of every surface and a reindex loop on one store at once: no write, no count lost.

In a temp git repository with a store, for a bounded time, all at once:

- ``tether lsp`` and ``tether mcp`` (real server processes, driven as in
  ``test_all_writers``) and a CLI loop (``cli_loop.py``) remember, pin, supersede and recall;
- a ``tether show`` loop on one memory (each show counts an action on it);
- a ``tether hook prompt`` loop in one agent session (each run counts a turn of it);
- a ``tether reindex`` loop, each swapping a freshly built index in (for the first 70% of the
  time: in the rest, the servers go on with the connections the last swap left them).

Afterwards every memory a writer was told was written is present exactly once as a file and
as an index row (``test_all_writers.check_store``), and the per-user counts, which live only in
the index, add up: every memory's acted count is its pins, supersessions and shows; the hook
session's turns are the hook runs. No writer saw an error, every process ended cleanly.
``make test`` runs it for a few seconds; ``make soak`` (``-s`` prints the figures) for longer.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from recall.locations import project_location
from recall.store import MemoryStore
from tests.reliability.cli_loop import Log
from tests.reliability.server_writers import (
    TETHER,
    Clock,
    lsp_writer,
    open_and_start_mcp,
    server_messages,
)
from tests.reliability.surface_loops import Tally
from tests.reliability.test_all_writers import check_store
from tests.reliability.test_index_swap import finish_loop, start_loop
from tests.reliability.wire import Wire

CLI_LOOP = Path(__file__).with_name("cli_loop.py")
DURATION_S = 5.0
"""How long everything runs together in ``make test``: each loop gets a few calls in on a
loaded 2-core machine, and the reindex loop overlaps them."""
SOAK_DURATION_S = 300.0
"""The ``make soak`` variant: five minutes of the same load."""
REINDEX_SHARE = 0.7
"""The part of the time the reindex loop runs: in the rest, the servers write and count with
the connections they had when the last reindex swapped the index, which must follow it."""
FINISH_TIMEOUT_S = 180.0
"""A bound on a writer finishing its last call after the time is up."""
SEED = "seeded gotcha: src/app.py must stay importable without side effects"
HOOK_SESSION = "soak-hook-session"


def _seed(repo: Path) -> str:
    store = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        draft = store.prepare_memory(summary=SEED, category="gotcha", files=["src/app.py"])
        return store.remember(draft).id
    finally:
        store.close()


def _counts(repo: Path) -> tuple[dict[str, int], int]:
    """Acted counts by memory, and the hook session's turns, read raw from the index."""
    with sqlite3.connect(repo / ".tether" / "index.db") as conn:
        acted = {str(i): int(n) for i, n in conn.execute("SELECT memory_id, acted FROM usage")}
        row = conn.execute("SELECT turns FROM sessions WHERE id = ?", (HOOK_SESSION,)).fetchone()
    return {i: n for i, n in acted.items() if n}, int(row[0]) if row else 0


def _expected_acted(logs: list[Log], seeded: str, shows: int) -> dict[str, int]:
    """Every pin and every supersession acts on its memory once; so does every show."""
    expected: Counter[str] = Counter()
    for log in logs:
        expected.update(log.pinned)
        expected.update(old for old, _new in log.superseded)
    expected[seeded] += shows
    return {i: n for i, n in expected.items() if n}


def _no_locked(where: str, texts: list[str]) -> None:
    for text in texts:
        assert "locked" not in text.lower(), f"{where}: {text[-2000:]}"


def _run(repo: Path, tmp_path: Path, duration: float) -> None:
    seeded = _seed(repo)
    app = repo / "src" / "app.py"
    uri, text = app.as_uri(), app.read_text(encoding="utf-8")
    clock = Clock(duration)
    logs = {kind: Log() for kind in ("lsp", "mcp", "cli")}
    loops: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}

    wire = Wire([*TETHER, "lsp"], repo, tmp_path / "lsp-stderr.txt")
    cli_proc: subprocess.Popen[bytes] | None = None
    try:
        mcp_thread = open_and_start_mcp(wire, repo, tmp_path, uri, text, clock, logs["mcp"])

        clock.start()
        cli_proc = subprocess.Popen(
            [sys.executable, str(CLI_LOOP), str(repo), "cli", str(duration), str(tmp_path / "cli")],
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        for kind, arg in (("reindex", ""), ("show", seeded), ("hook", HOOK_SESSION)):
            out = tmp_path / f"{kind}.json"
            seconds = duration * (REINDEX_SHARE if kind == "reindex" else 1.0)
            loops[kind] = (start_loop(repo, kind, seconds, out, arg), out)
        lsp_thread = threading.Thread(
            target=lsp_writer, args=(wire, uri, text, clock, logs["lsp"]), daemon=True
        )
        lsp_thread.start()
        lsp_thread.join(duration + FINISH_TIMEOUT_S)  # joined as the time starts running
        mcp_thread.join(FINISH_TIMEOUT_S)
        assert not lsp_thread.is_alive() and not mcp_thread.is_alive(), "a writer hung"
        _out, err = cli_proc.communicate(timeout=FINISH_TIMEOUT_S)
        assert cli_proc.returncode == 0 and not err, err.decode(errors="replace")
        logs["cli"] = Log(**json.loads((tmp_path / "cli").read_text("utf-8")))
        tallies = {kind: finish_loop(proc, out) for kind, (proc, out) in loops.items()}
    finally:
        for proc in [cli_proc, *(p for p, _out in loops.values())]:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        wire.close()
    _check(repo, tmp_path, wire, seeded, logs, tallies, duration)


def _check(
    repo: Path,
    tmp_path: Path,
    wire: Wire,
    seeded: str,
    logs: dict[str, Log],
    tallies: dict[str, Tally],
    duration: float,
) -> None:
    for message in server_messages(wire):
        logs["lsp"].texts.append(str(message["params"].get("message", "")))
        if message["params"].get("type") == 1:  # shown to the user as an error
            logs["lsp"].errors.append(str(message["params"]))
    lsp_stderr = wire.stderr()
    mcp_stderr = (tmp_path / "mcp-stderr.txt").read_text(encoding="utf-8")
    reported = [seeded, *(i for log in logs.values() for i in log.created)]
    acted, turns = _counts(repo)
    expected = _expected_acted(list(logs.values()), seeded, tallies["show"].ok)
    lost = sum(max(0, n - acted.get(i, 0)) for i, n in expected.items())
    writes = sum(len(log.created) + len(log.pinned) for log in logs.values())
    print(
        f"\n[soak with reindex] {duration:.0f} s: memory writes={writes} (memories="
        f"{len(reported) - 1}, pins={sum(len(log.pinned) for log in logs.values())}) by "
        + ", ".join(f"{k} {len(v.created) + len(v.pinned)}" for k, v in logs.items())
        + f"; reindexes={tallies['reindex'].ok}; acted increments={sum(expected.values())} "
        f"(shows={tallies['show'].ok}); hook turns={tallies['hook'].ok}; "
        f"lost: acted={lost}, turns={max(0, tallies['hook'].ok - turns)}"
    )

    for kind, log in logs.items():
        assert log.errors == [], f"{kind}: {log.errors[:3]}"
        _no_locked(kind, log.texts)
        assert log.created, f"{kind} never got a write in"
    for kind, tally in tallies.items():
        assert tally.errors == [], f"{kind}: {tally.errors[:3]}"
        _no_locked(kind, tally.texts)
        assert not any("Traceback" in t for t in tally.texts), f"{kind}: {tally.texts[:3]}"
        assert tally.ok >= 1, f"the {kind} loop never completed a call"
    assert wire.process.returncode == 0, lsp_stderr[-3000:]
    assert (tmp_path / "mcp-exit-code").read_text(encoding="utf-8") == "0", mcp_stderr[-3000:]
    for name, stderr in (("lsp", lsp_stderr), ("mcp", mcp_stderr)):
        assert "Traceback" not in stderr, f"{name}: {stderr[-3000:]}"
        _no_locked(f"{name} stderr", [stderr])
    check_store(repo, reported, list(logs.values()))
    assert acted == expected, "acted counts lost or doubled"
    assert turns == tallies["hook"].ok, "hook turns lost or doubled"
    hooks_log = repo / ".tether" / "hooks.log"
    logged = hooks_log.read_text(encoding="utf-8") if hooks_log.exists() else ""
    assert " ERROR " not in logged and "Traceback" not in logged, logged[-3000:]


def test_every_surface_and_a_reindex_loop_lose_no_write_and_no_count(
    repo: Path, tmp_path: Path
) -> None:
    _run(repo, tmp_path, DURATION_S)


@pytest.mark.soak
def test_every_surface_and_a_reindex_loop_soak(repo: Path, tmp_path: Path) -> None:
    _run(repo, tmp_path, SOAK_DURATION_S)
