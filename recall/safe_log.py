"""A log file a repository cannot redirect or forge: no link followed, one line per record.

The hooks log notices into the project's store folder, and some of what they log (a settings
key, a path) is text the repository chose. So the file is opened without following a link at
its name (see :mod:`recall.containment`), and each record is written on one line with line
breaks and other control characters escaped.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TextIO

from recall.containment import open_append_no_follow
from recall.display import visible

LOG_FORMAT = "%(asctime)s %(levelname)s %(message)s"


def one_line(text: str) -> str:
    """``text`` as one log line: backslashes, line breaks and other control characters escaped."""
    return visible(text.replace("\\", "\\\\"))


class NoFollowFileHandler(logging.FileHandler):
    """A log file opened for appending that refuses to follow a link at its name."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8", delay=True)

    def _open(self) -> TextIO:
        fd = open_append_no_follow(Path(self.baseFilename))
        return open(fd, "a", encoding="utf-8")


class OneLineFormatter(logging.Formatter):
    """Each record on one line, so the repository's text cannot start another."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as :class:`logging.Formatter` writes it, then escaped onto one line."""
        return one_line(super().format(record))


def one_line_file_handler(path: Path) -> logging.Handler:
    """A handler appending one-line records to ``path`` without following a link there."""
    handler = NoFollowFileHandler(path)
    handler.setFormatter(OneLineFormatter(LOG_FORMAT))
    return handler
