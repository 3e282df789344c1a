"""Building the MCP server around a workspace, and running it over stdio."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Final

import anyio

from mcp_server import tools
from mcp_server.strict import TetherMCPServer
from mcp_server.workspace import Workspace
from recall import __version__
from recall.errors import EXIT_FAILURE
from recall.stop_signals import on_stop_signals

INSTRUCTIONS = """Tether is the memory of this repository: short notes (gotchas, decisions,
preferences, context) tied to the files they are about, kept as text files in .tether/ and
shared through git. Before editing files, call memory_recall with their paths (and the task as
prompt) and read what comes back; call memory_get for the details of a memory you follow. When
you learn something the code cannot say by itself (a trap and its fix, a decision and why),
write it with memory_write, naming the files; correct a wrong memory with memory_supersede."""

STOP_WAIT_SECONDS: Final = 2.0
"""How long a stop signal waits for a tool call that holds the stores (a recall, a write being
made) before the process ends without closing them, as it ends after abandoned requests."""


def build(ws: Workspace, *, log_level: str = "WARNING") -> TetherMCPServer:
    """A server offering the memory tools over ``ws`` (tools only, strict arguments)."""
    server = TetherMCPServer(
        "tether",
        version=__version__,
        instructions=" ".join(INSTRUCTIONS.split()),  # one paragraph, source wraps undone
        log_level=log_level,  # type: ignore[arg-type]
    )
    tools.register(server, ws)
    server.make_strict()
    server.serve_tools_only()
    return server


def run(cwd: Path, *, log_level: str = "WARNING") -> int:
    """Serve one client over stdin/stdout until it disconnects; logs go to stderr only. When
    requests had to be abandoned at the end of the input (:mod:`mcp_server.in_flight`), the
    process exits at once with :data:`recall.errors.EXIT_FAILURE`; a stop signal (SIGHUP,
    SIGTERM, Ctrl-C) ends it at once too, with 128 + the signal's number (:func:`stopped`)."""
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, log_level.upper(), logging.WARNING),
        format="tether-mcp %(levelname)s %(name)s: %(message)s",
    )
    ws = Workspace(cwd)
    server = build(ws, log_level=log_level)
    try:
        anyio.run(_serve, server, ws)
    except BaseException:
        ws.close()
        raise
    if server.abandoned:
        # A call given up may still run, holding the workspace's lock: the process ends
        # without closing the stores (SQLite and the memory files' atomic writes stay whole)
        # and without waiting for the worker threads, as interpreter exit would.
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_FAILURE)
    ws.close()
    return 0


async def _serve(server: TetherMCPServer, ws: Workspace) -> None:
    """Serve over stdio as the SDK's ``run("stdio")`` does, a stop signal ending the session
    and the process (:mod:`recall.stop_signals`): the reader of standard input is a thread no
    interrupt stops, so the session would otherwise last until the input ends."""
    on_stop_signals(lambda: stopped(server, ws))
    await server.run_stdio_async()


def stopped(server: TetherMCPServer, ws: Workspace) -> None:
    """The end of a session a signal stopped: the stores closed, as at the end of the input,
    unless a tool call still holds them after :data:`STOP_WAIT_SECONDS`; then they are left
    as they are (SQLite and the memory files' atomic writes stay whole) and the calls still
    running are named on stderr as abandoned."""
    if ws.close_if_free(STOP_WAIT_SECONDS):
        return
    running = server.calls.running()
    named = f": {', '.join(running)}" if running else ""
    print(
        f"tether mcp: stopped by a signal with a call still running, abandoned{named}; "
        "`tether list` shows whether a write among them was made",
        file=sys.stderr,
        flush=True,
    )
