"""``tether mcp`` told to stop by a signal while its client keeps its input open: Ctrl-C in the
terminal that started it, SIGTERM from a supervisor, SIGHUP as the terminal or the agent goes.
The server ends at once, as the language server does, with 128 + the signal's number, after
the clean-up the end of its input does (its stores closed: the index's write-ahead log is
folded back and removed), never lingering until its input ends. A real process in a real
repository with a store."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import run_tether

from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, line, start_server, tool_call

STOP_WAIT_S = 60
"""How long the test waits for the process to end (a bound against a hang, not a timing: it
ends in milliseconds)."""


def _recall(msg_id: int, path: str) -> dict[str, Any]:
    return tool_call(msg_id, "memory_recall", {"files": [path]})


def _answer(server: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert server.stdout is not None
    got = server.stdout.readline()
    assert got, "the server closed its output"
    return json.loads(got)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_ends_the_server_at_once_with_its_code(
    repo: Path, tmp_path: Path, stop: signal.Signals
) -> None:
    done = run_tether("remember", "app start is slow", "-c", "gotcha", "-f", "src/app.py", cwd=repo)
    assert done.code == 0, done.stderr
    stderr = tmp_path / "stderr.txt"
    with stderr.open("wb") as said:
        server = start_server(repo, stderr=said)
    assert server.stdin is not None
    try:
        server.stdin.write(line(INITIALIZE))
        server.stdin.flush()
        assert _answer(server)["id"] == 1
        server.stdin.write(line(INITIALIZED) + line(_recall(2, "src/app.py")))
        server.stdin.flush()
        answer = _answer(server)
        assert answer["id"] == 2 and "app start is slow" in json.dumps(answer)
        log = repo / ".tether" / "index.db-wal"
        assert log.exists()  # the store is open

        server.send_signal(stop)

        assert server.wait(timeout=STOP_WAIT_S) == 128 + stop  # its input still open
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stdin.close()
        assert server.stdout is not None
        server.stdout.close()
    assert not log.exists()  # closed as at the end of the input
    text = stderr.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text, text
