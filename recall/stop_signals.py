"""A stdio server told to stop by a signal: an editor sends its servers SIGHUP as it quits (no
goodbye on the wire), a supervisor SIGTERM, a terminal Ctrl-C. Each ends the server's session
as its normal end does, then the process exits at once with the signal's code. Without this,
SIGHUP and SIGTERM killed the process before its clean-up ran, and Ctrl-C left it running and
deaf until its input closed (the reader of standard input is a thread no interrupt stops).
Both servers, ``tether lsp`` and ``tether mcp``, stop this way."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Final

STOP_SIGNALS: Final = tuple(
    getattr(signal, name) for name in ("SIGHUP", "SIGTERM", "SIGINT") if hasattr(signal, name)
)
"""The signals that end the session: those a quitting editor, a supervisor and a terminal send."""


def on_stop_signals(end: Callable[[], None]) -> None:
    """Run ``end`` and exit when one of :data:`STOP_SIGNALS` arrives, handled by the running
    event loop between its callbacks (never in the middle of one of the server's own)."""
    loop = asyncio.get_running_loop()
    for number in STOP_SIGNALS:
        # not on this platform's loop (Windows), or not from the main thread (a test's loop)
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(number, _stop, end, number)


def _stop(end: Callable[[], None], number: int) -> None:
    """End the session, then leave with 128 + the signal's number, as a shell reports it."""
    try:
        end()
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os._exit(128 + number)
