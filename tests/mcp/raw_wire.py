"""What the tests that speak to the MCP server in raw bytes share: the handshake's messages,
one message as a line of bytes, and how long a reply is waited for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
WAIT_S = 120  # a bound against a hang on a loaded machine, not a timing


def line(message: dict[str, Any]) -> bytes:
    """``message`` as one line of JSON, as a client sends it."""
    return json.dumps(message).encode() + b"\n"


def tool_call(msg_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A ``tools/call`` request for ``tool`` with ``arguments``."""
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": params}


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a server the tests start: theirs, with ``extra``, less Claude Code's
    project variable (the server would take that folder over its working directory)."""
    environment = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    environment.update(extra or {})
    return environment


def start_server(
    repo: Path,
    *,
    env: dict[str, str] | None = None,
    stderr: int | IO[bytes] = subprocess.PIPE,
    text: bool = False,
) -> subprocess.Popen[Any]:
    """A fresh ``tether mcp`` process in ``repo``, its input and output piped, not initialized."""
    return subprocess.Popen(
        [sys.executable, "-m", "recall", "mcp"],
        cwd=repo,
        env=server_env(env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=text,
    )


def server_answers(repo: Path, sent: bytes) -> list[dict[str, Any]]:
    """Every message a fresh ``tether mcp`` in ``repo`` writes for ``sent``, its input closed
    after ``sent`` (the process must exit 0)."""
    done = subprocess.run(
        [sys.executable, "-m", "recall", "mcp"],
        cwd=repo,
        env=server_env(),
        input=sent,
        capture_output=True,
        timeout=WAIT_S,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.decode().splitlines()]
