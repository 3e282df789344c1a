"""A log file a repository cannot redirect or forge: no link followed, one line per record.

The hooks log notices into the project's store folder, and some of what they log (a settings
key, a path) is text the repository chose. So the file is opened without following a link at
its name (see :mod:`recall.containment`), and each record is written on one line with line
breaks and other control characters escaped.

A log that cannot be written (a read-only checkout, a full disk, a link at its name) never
fails or disturbs its caller: the record goes to the fallback file when one is given, and is
dropped otherwise; nothing is raised and nothing is printed on stderr, where
:class:`logging.Handler` would print a "--- Logging error ---" traceback.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from recall.containment import open_append_no_follow
from recall.display import visible

LOG_FORMAT = "%(asctime)s %(levelname)s %(message)s"


def one_line(text: str) -> str:
    """``text`` as one log line: backslashes, line breaks and other control characters escaped."""
    return visible(text.replace("\\", "\\\\"))


class NoFollowFileHandler(logging.FileHandler):
    """A log file opened for appending that refuses to follow a link at its name.

    ``fallback``, when given, is asked once, when the file cannot be opened or written, for
    another file to log to from then on (it may raise, or return None, for none)."""

    def __init__(self, path: Path, fallback: Callable[[], Path | None] | None = None) -> None:
        super().__init__(path, encoding="utf-8", delay=True)
        self._fallback = fallback

    def _open(self) -> TextIO:
        fd = open_append_no_follow(Path(self.baseFilename))
        return open(fd, "a", encoding="utf-8")

    def emit(self, record: logging.LogRecord) -> None:
        """Append ``record``, flushed at once; on failure try the fallback file, then drop it."""
        try:
            text = self.format(record) + self.terminator
        except Exception:
            return
        while True:
            try:
                if self.stream is None:
                    self.stream = self._open()
                self.stream.write(text)
                self.stream.flush()
                return
            except Exception:
                self._drop_stream()
                if not self._use_fallback():
                    return

    def handleError(self, record: logging.LogRecord) -> None:
        """Quiet: a record that cannot be written is dropped, never printed on stderr."""
        self._drop_stream()

    def flush(self) -> None:
        """Flush, quietly: whatever cannot be written now is dropped."""
        with contextlib.suppress(Exception):
            super().flush()

    def close(self) -> None:
        """Close, quietly (a full disk may refuse the last flush)."""
        self._drop_stream()
        with contextlib.suppress(Exception):
            super().close()

    def _drop_stream(self) -> None:
        """Close the open file, if any, dropping what it could not write; the next record
        opens it again."""
        stream, self.stream = self.stream, None  # type: ignore[assignment]
        if stream is not None:
            with contextlib.suppress(Exception):
                stream.close()  # the descriptor is closed even when the flush fails

    def _use_fallback(self) -> bool:
        """Switch to the fallback file; False when there is none (any more)."""
        fallback, self._fallback = self._fallback, None
        if fallback is None:
            return False
        try:
            path = fallback()
        except Exception:
            return False
        if path is None:
            return False
        self.baseFilename = os.path.abspath(path)
        return True


class OneLineFormatter(logging.Formatter):
    """Each record on one line, so the repository's text cannot start another."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as :class:`logging.Formatter` writes it, then escaped onto one line."""
        return one_line(super().format(record))


def one_line_file_handler(
    path: Path, fallback: Callable[[], Path | None] | None = None
) -> logging.Handler:
    """A handler appending one-line records to ``path`` without following a link there, and
    to the file ``fallback`` names when ``path`` cannot be written (see
    :class:`NoFollowFileHandler`); a record no file takes is dropped, quietly."""
    handler = NoFollowFileHandler(path, fallback)
    handler.setFormatter(OneLineFormatter(LOG_FORMAT))
    return handler
