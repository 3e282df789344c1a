"""The language server and the MCP server as writers for the all-writers test.

Each writer follows ``cli_loop.next_call`` (remember, pin, supersede, recall) against a real
server process until its :class:`Clock` runs out, recording into a ``cli_loop.Log`` every write
the server said was done and every error or message it sent back.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.mcp.harness import text_of
from tests.reliability.cli_loop import Log, next_call
from tests.reliability.wire import Message, Wire

EXIT_CODE = Path(__file__).with_name("exit_code.py")
TETHER = [sys.executable, "-m", "recall"]
ANSWER_TIMEOUT_S = 120.0
"""A bound on a server starting up or answering one request on a busy machine: a hang fails
the test instead of stalling it. This is no benchmark."""


@dataclass
class Clock:
    """When the writers start (``go``) and stop (``deadline``, on ``time.monotonic``)."""

    duration: float
    go: threading.Event = field(default_factory=threading.Event)
    deadline: float = 0.0

    def start(self) -> None:
        """Set the deadline and let every writer go."""
        self.deadline = time.monotonic() + self.duration
        self.go.set()

    def running(self) -> bool:
        """Whether the time is not up yet."""
        return time.monotonic() < self.deadline


# -- the language server ---------------------------------------------------------------------


def _command(kind: str, target: str, tag: str, i: int, uri: str) -> dict[str, Any]:
    if kind == "pin":
        args: dict[str, Any] = {"memoryId": target}
    elif kind == "supersede":
        args = {
            "memoryId": target,
            "summary": f"{tag} replaces {target} at {i}",
            "category": "decision",
            "files": ["src/util.py"],
        }
    elif kind == "recall":
        args = {"uri": uri}
    else:
        args = {"uri": uri, "summary": f"{tag} {i}", "category": "gotcha"}
    return {"command": f"tether.{kind}", "arguments": [args]}


def _record(log: Log, kind: str, target: str, result: dict[str, Any]) -> None:
    """Record a successful call's result (shared by the LSP and MCP writers)."""
    if kind == "recall":
        log.recalls += 1
    elif kind == "pin":
        log.pinned.append(target)
    elif result.get("duplicate_of") or result.get("written") is False:
        log.errors.append(f"{kind}: not written, reported as a duplicate: {result}")
    else:
        log.created.append(result["id"])
        if kind == "supersede":
            log.superseded.append([target, result["id"]])


def lsp_writer(wire: Wire, uri: str, text: str, clock: Clock, log: Log) -> None:
    """Edit the open file and run the plan's commands through ``workspace/executeCommand``."""
    i = 0
    try:
        while clock.running():
            i += 1
            wire.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": i + 1},
                    "contentChanges": [{"text": f"{text}# edit {i}\n"}],
                },
            )
            kind, target = next_call(i, log)
            log.attempts += kind != "recall"
            answer = wire.request(
                "workspace/executeCommand",
                _command(kind, target, "lsp", i, uri),
                ANSWER_TIMEOUT_S,
            )
            if "error" in answer or not isinstance(answer.get("result"), dict):
                log.errors.append(f"{kind}: {answer}")
                continue
            _record(log, kind, target, answer["result"])
    except Exception:  # reported to the test, which fails on it
        log.errors.append(traceback.format_exc())


def server_messages(wire: Wire) -> list[Message]:
    """The showMessage / logMessage notifications the server sent (the inbox is drained)."""
    found = []
    while not wire.inbox.empty():
        message = wire.inbox.get_nowait()
        if message.get("method") in ("window/showMessage", "window/logMessage"):
            found.append(message)
    return found


# -- the MCP server --------------------------------------------------------------------------


def _tool_call(kind: str, target: str, i: int) -> tuple[str, dict[str, Any]]:
    if kind == "pin":
        return "memory_pin", {"id": target}
    if kind == "supersede":
        return "memory_supersede", {
            "old_id": target,
            "summary": f"mcp replaces {target} at {i}",
            "category": "decision",
            "files": ["src/util.py"],
        }
    if kind == "recall":
        return "memory_recall", {"files": ["src/app.py"]}
    return "memory_write", {"summary": f"mcp {i}", "category": "gotcha", "files": ["src/app.py"]}


async def _mcp_session(
    repo: Path, tmp_path: Path, ready: threading.Event, clock: Clock, log: Log
) -> None:
    # Run under an agent, the test may inherit its project variable: it would win over cwd.
    environment = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(EXIT_CODE), str(tmp_path / "mcp-exit-code"), *TETHER, "mcp"],
        cwd=repo,
        env=environment,
    )

    async def logged(params: Any) -> None:
        log.texts.append(str(params))

    with (tmp_path / "mcp-stderr.txt").open("w", encoding="utf-8") as errlog:
        transport = stdio_client(params, errlog=errlog)
        async with Client(
            transport, read_timeout_seconds=ANSWER_TIMEOUT_S, logging_callback=logged
        ) as client:
            ready.set()
            await asyncio.to_thread(clock.go.wait, ANSWER_TIMEOUT_S)
            i = 0
            while clock.running():
                i += 1
                kind, target = next_call(i, log)
                log.attempts += kind != "recall"
                tool, arguments = _tool_call(kind, target, i)
                result = await client.call_tool(tool, arguments)
                if result.is_error or result.structured_content is None:
                    log.errors.append(f"{tool}: {text_of(result)}")
                    continue
                _record(log, kind, target, result.structured_content)


def mcp_writer(repo: Path, tmp_path: Path, ready: threading.Event, clock: Clock, log: Log) -> None:
    """Start ``tether mcp``, say it is ready, then run the plan's tool calls until the time is
    up and close the session (which ends the server)."""
    try:
        asyncio.run(_mcp_session(repo, tmp_path, ready, clock, log))
    except BaseException:  # reported to the test, which fails on it
        log.errors.append(traceback.format_exc())
        ready.set()


def open_and_start_mcp(
    wire: Wire, repo: Path, tmp_path: Path, uri: str, text: str, clock: Clock, log: Log
) -> threading.Thread:
    """Initialize the language server with ``uri`` open until it publishes its gotcha, then
    start the MCP writer thread and wait until its server is ready; return that thread."""
    wire.initialize(repo)
    wire.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    wire.wait_for(
        lambda m: (
            m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and bool(m["params"]["diagnostics"])
        ),
        timeout=ANSWER_TIMEOUT_S,
    )
    ready = threading.Event()
    thread = threading.Thread(
        target=mcp_writer,
        args=(repo, tmp_path, ready, clock, log),
        daemon=True,  # a hung writer fails the test; it must not hold pytest open
    )
    thread.start()
    assert ready.wait(ANSWER_TIMEOUT_S), "the MCP server did not start"
    assert not log.errors, log.errors
    return thread
