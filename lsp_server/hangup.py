"""The server's stdout for a client that may hang up at any moment.

When an editor is killed, its end of the pipe closes with answers still queued. Written to
the raw stream, each of them would fail on its own and log a ``BrokenPipeError`` traceback
(thousands after a burst). Here the first failed write says once that the client is gone and
asks the server to stop; every later write is dropped quietly.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import BinaryIO

logger = logging.getLogger("tether.lsp")

_GONE = (BrokenPipeError, ConnectionResetError)


class ClientStdout:
    """A binary stream that stops writing, once and quietly, when the reader has gone."""

    def __init__(self, stream: BinaryIO, on_lost: Callable[[], None]) -> None:
        self._stream = stream
        self._on_lost = on_lost
        self.lost = False

    def _lose(self) -> None:
        if not self.lost:
            self.lost = True
            logger.warning("the client closed the connection; stopping")
            self._on_lost()

    def write(self, data: bytes) -> int:
        """Write ``data`` unless the client is gone (then report it written)."""
        if not self.lost:
            try:
                return self._stream.write(data)
            except _GONE:
                self._lose()
            except ValueError:  # the stream itself was closed
                self._lose()
        return len(data)

    def flush(self) -> None:
        """Flush unless the client is gone."""
        if self.lost:
            return
        try:
            self._stream.flush()
        except (*_GONE, ValueError):
            self._lose()

    def close(self) -> None:
        """Close the underlying stream."""
        if not self.lost:
            try:
                self._stream.close()
            except (*_GONE, ValueError):
                self._lose()
