"""The MCP server's handshake and the framing of its input, spoken to with raw bytes: no tool
runs before ``initialize`` (a premature ``notifications/initialized`` opens nothing), a byte
order mark before the first message is no part of it, and blank lines between messages are
not messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, WAIT_S, line


def _write(msg_id: int, summary: str) -> dict[str, Any]:
    arguments = {"summary": summary, "category": "gotcha", "files": ["src/app.py"]}
    params = {"name": "memory_write", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": params}


def _answers(repo: Path, sent: bytes) -> list[dict[str, Any]]:
    """Every answer a fresh ``tether mcp`` writes for ``sent`` (the process must exit 0)."""
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    done = subprocess.run(
        [sys.executable, "-m", "recall", "mcp"],
        cwd=repo,
        env=env,
        input=sent,
        capture_output=True,
        timeout=WAIT_S,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def test_no_tool_runs_before_initialize_even_after_an_initialized_notification(
    repo: Path,
) -> None:
    sent = line(INITIALIZED) + line(_write(2, "written without initialize"))
    [answer] = _answers(repo, sent)
    assert answer["id"] == 2
    assert answer["error"]["code"] == -32602
    assert "send initialize" in answer["error"]["message"]
    assert not list((repo / ".tether" / "memories").glob("*.md"))
    # the handshake done in order afterwards works as usual
    sent += line(INITIALIZE) + line(INITIALIZED) + line(_write(3, "written after it"))
    answers = {a["id"]: a for a in _answers(repo, sent)}
    assert "error" in answers[2] and not answers[3]["result"]["isError"]


def test_a_byte_order_mark_and_blank_lines_are_not_messages(repo: Path) -> None:
    sent = (
        b"\xef\xbb\xbf"
        + line(INITIALIZE)
        + b"\n\r\n   \n"
        + json.dumps(INITIALIZED).encode()
        + b"\r\n\n"
        + line({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        + b"\n"
    )
    answers = _answers(repo, sent)
    assert [a["id"] for a in answers] == [1, 2], answers
    assert "result" in answers[0] and answers[1]["result"] == {}
