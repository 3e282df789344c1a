"""The language server under a burst of changes and hovers, and with clients that hang up.

``tether lsp`` runs as a real process driven over its stdio by a raw client (``wire``). The
burst sends didChange and hover messages back to back without waiting for any answer, on a
store of many memories; the server must answer every hover, end with the right card, and hold
its memory and open files: RSS (``VmRSS``) and ``/proc/PID/fd`` are read before and after.
``make test`` runs a smaller burst; ``make soak`` runs 10,000 messages on 10,000 memories.

A client that disconnects with requests outstanding (stdin closed; or stdin closed and its
stdout no longer read, as when the editor is killed) must leave a server that exits by itself
within a bounded time, with exit code 0, no child left behind and no traceback on stderr.
Run with ``-s`` for the figures.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from bench.synth import memories as synthetic_memories
from recall.importer import import_lines
from tests.lsp import workspace
from tests.lsp.workspace import GOTCHA, Workspace
from tests.reliability.wire import Wire, children, open_fds, rss_kib

SERVER = [sys.executable, "-m", "recall", "lsp"]
ANSWER_TIMEOUT_S = 600.0  # a generous bound on a shared 2-core machine: this is no benchmark
EXIT_TIMEOUT_S = 15.0
"""How long a server may take to notice a hang-up and exit (it should take well under 1 s)."""
FD_SLACK = 8
"""Descriptors the server may open after the burst for reasons of its own (a git process's
pipes, a cache file): a leak per message would show as hundreds."""
RSS_SLACK_KIB = 150 * 1024
"""RSS growth allowed over the burst: caches fill on first use (vectors, the genome, recall
results), while a leak per message would grow with the burst's length."""


def _workspace(tmp_path: Path, count: int) -> Workspace:
    """The LSP test repository plus ``count`` generated memories (some on the file edited)."""
    ws = workspace.build(tmp_path / "repo")
    store = ws.open_store()
    try:
        lines = [json.dumps(record) for record in synthetic_memories(count)]
        lines += [
            json.dumps(
                {
                    "summary": f"store note {k}: keep writes atomic",
                    "category": "context",
                    "files": ["src/store.py"],
                }
            )
            for k in range(50)
        ]
        import_lines(store, lines, lambda raw: raw, "Load Test")
    finally:
        store.close()
    return ws


def _publish_for(uri: str):
    return lambda m: (
        m.get("method") == "textDocument/publishDiagnostics"
        and (m["params"]["uri"] == uri and m["params"]["diagnostics"])
    )


def _hover_params(uri: str, position: dict[str, int]) -> dict[str, object]:
    return {"textDocument": {"uri": uri}, "position": position}


def _card(answer: dict[str, object]) -> str:
    result = answer.get("result")
    assert isinstance(result, dict), answer
    return str(result["contents"]["value"]).replace("\\", "")


def _start(ws: Workspace, tmp_path: Path) -> tuple[Wire, str, dict[str, int]]:
    """A server with ``src/store.py`` open and its gotcha published; returns the wire, the
    document's URI and a position inside the gotcha's range."""
    wire = Wire(SERVER, ws.root, tmp_path / "server-stderr.txt")
    wire.initialize(ws.root)
    uri = ws.store_py.as_uri()
    text = ws.store_py.read_text(encoding="utf-8")
    wire.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    published = wire.wait_for(_publish_for(uri), timeout=ANSWER_TIMEOUT_S)
    (diagnostic,) = [d for d in published["params"]["diagnostics"] if d["code"] == ws.gotcha]
    start = diagnostic["range"]["start"]
    return wire, uri, {"line": start["line"], "character": start["character"] + 1}


def _burst(tmp_path: Path, memories: int, messages: int) -> None:
    ws = _workspace(tmp_path, memories)
    wire, uri, position = _start(ws, tmp_path)
    try:
        text = ws.store_py.read_text(encoding="utf-8")
        first = wire.request("textDocument/hover", _hover_params(uri, position), ANSWER_TIMEOUT_S)
        assert GOTCHA in _card(first)
        rss_before, fds_before = rss_kib(wire.pid), open_fds(wire.pid)
        started = time.monotonic()
        hovers = []
        for k in range(messages // 2):
            wire.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": k + 2},
                    "contentChanges": [{"text": f"{text}\n# burst edit {k}\n"}],
                },
            )
            hovers.append(wire.request_nowait("textDocument/hover", _hover_params(uri, position)))
        sent_s = time.monotonic() - started
        last = wire.request("textDocument/hover", _hover_params(uri, position), ANSWER_TIMEOUT_S)
        drained_s = time.monotonic() - started
        assert GOTCHA in _card(last), "the final hover lost the card"
        errors = [wire.answers[h] for h in hovers if "error" in wire.answer(h, ANSWER_TIMEOUT_S)]
        assert not errors, errors[:3]
        rss_after, fds_after = rss_kib(wire.pid), open_fds(wire.pid)
        print(
            f"\n[lsp burst] memories={memories + 53} messages={messages + 1} "
            f"(didChange={messages // 2}, hover={messages // 2 + 1}); sent in {sent_s:.1f} s, "
            f"all answered after {drained_s:.1f} s; RSS {rss_before / 1024:.1f} -> "
            f"{rss_after / 1024:.1f} MiB; open fds {fds_before} -> {fds_after}; "
            f"notifications received={wire.notifications}"
        )
        assert fds_after <= fds_before + FD_SLACK
        assert rss_after <= rss_before + RSS_SLACK_KIB
    finally:
        wire.close()
    assert wire.process.returncode == 0
    assert "Traceback" not in wire.stderr(), wire.stderr()[-3000:]


def test_burst_of_changes_and_hovers(tmp_path: Path) -> None:
    _burst(tmp_path, memories=1_000, messages=2_000)


@pytest.mark.soak
def test_burst_soak(tmp_path: Path) -> None:
    _burst(tmp_path, memories=10_000, messages=10_000)


@pytest.mark.parametrize("reading", [True, False], ids=["stdin-closed", "client-gone"])
def test_client_hanging_up_mid_request_lets_the_server_exit(tmp_path: Path, reading: bool) -> None:
    ws = _workspace(tmp_path, 200)
    wire, uri, position = _start(ws, tmp_path)
    text = ws.store_py.read_text(encoding="utf-8")
    for k in range(200):
        wire.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": k + 2},
                "contentChanges": [{"text": f"{text}\n# edit {k}\n"}],
            },
        )
        wire.request_nowait("textDocument/hover", _hover_params(uri, position))
    kids_before = children(wire.pid)
    hung_up = time.monotonic()
    wire.hang_up(reading=reading)
    try:
        code = wire.process.wait(timeout=EXIT_TIMEOUT_S)
    except Exception:
        wire.process.kill()
        wire.process.wait()
        raise AssertionError(f"the server was still running {EXIT_TIMEOUT_S} s after") from None
    finally:
        wire.close()
    took = time.monotonic() - hung_up
    stderr = wire.stderr()
    left = [pid for pid in kids_before if Path(f"/proc/{pid}").exists()]
    answered = len(wire.answers)
    print(
        f"\n[lsp hang-up, {'stdin closed' if reading else 'client gone'}] 400 messages sent, "
        f"{answered} answered before the hang-up was seen; exit code {code} after {took:.2f} s; "
        f"stderr lines={len(stderr.splitlines())}"
    )
    assert code == 0, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]
    assert not left, f"children left running: {left}"
