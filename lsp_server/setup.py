"""Building the server from its feature modules, and running it over stdio."""

from __future__ import annotations

import logging
import sys

from lsp_server import (
    code_actions,
    commands,
    edit_stream,
    hover,
    lifecycle,
    memory_documents,
    watching,
)
from lsp_server.hangup import ClientStdout
from lsp_server.progress import Indexer
from lsp_server.server import TetherServer
from lsp_server.session_start import SessionStarter
from lsp_server.warm_up import WarmUp


def build() -> TetherServer:
    """A server with its background workers attached and every feature registered."""
    server = TetherServer()
    server.indexer = Indexer(server)
    server.session_start = SessionStarter(server)
    server.warm_up = WarmUp(server)
    server.check_memory_document = memory_documents.check
    for feature in (lifecycle, edit_stream, watching, hover, code_actions, commands):
        feature.register(server)
    return server


def run(log_level: str = "WARNING") -> int:
    """Serve one client over stdin/stdout until it exits; logs go to stderr, never stdout.
    Returns the process's exit code: 1 after an ``exit`` that no ``shutdown`` came before."""
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, log_level.upper(), logging.WARNING),
        format="tether-lsp %(levelname)s %(name)s: %(message)s",
    )
    server = build()
    server.start_io(stdout=ClientStdout(sys.stdout.buffer, on_lost=lambda: _stop(server)))
    lifecycle.end_session(server)  # the client may have left without shutdown
    return server.protocol.exit_code


def _stop(server: TetherServer) -> None:
    """End the message loop after the client hung up (pygls's own stop flag: its
    ``shutdown`` would wait on the stdin reader from inside the loop)."""
    stop = getattr(server, "_stop_event", None)
    if stop is not None:
        stop.set()
