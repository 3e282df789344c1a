"""The MCP server's handshake and the framing of its input, spoken to with raw bytes: no tool
runs before ``initialize`` (a premature ``notifications/initialized`` opens nothing), a byte
order mark before the first message is no part of it, and blank lines between messages are
not messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, line, server_answers, tool_call


def _write(msg_id: int, summary: str) -> dict[str, Any]:
    arguments = {"summary": summary, "category": "gotcha", "files": ["src/app.py"]}
    return tool_call(msg_id, "memory_write", arguments)


def test_no_tool_runs_before_initialize_even_after_an_initialized_notification(
    repo: Path,
) -> None:
    sent = line(INITIALIZED) + line(_write(2, "written without initialize"))
    [answer] = server_answers(repo, sent)
    assert answer["id"] == 2
    assert answer["error"]["code"] == -32602
    assert "send initialize" in answer["error"]["message"]
    assert not list((repo / ".tether" / "memories").glob("*.md"))
    # the handshake done in order afterwards works as usual
    sent += line(INITIALIZE) + line(INITIALIZED) + line(_write(3, "written after it"))
    answers = {a["id"]: a for a in server_answers(repo, sent)}
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
    answers = server_answers(repo, sent)
    assert [a["id"] for a in answers] == [1, 2], answers
    assert "result" in answers[0] and answers[1]["result"] == {}
