"""Reading a source file for its imports, within the size, binary and encoding limits."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from recall.containment import read_plain_prefix
from recall.genome.limits import BINARY_SNIFF_BYTES, MAX_SCAN_BYTES

SKIP_BINARY = "binary"
SKIP_HUGE = "huge"
SKIP_NON_UTF8 = "non_utf8"
SKIP_UNREADABLE = "unreadable"


@dataclass(frozen=True)
class SourceText:
    """A file's text, or why it was not read."""

    text: str | None
    skipped: str | None


def stat_key(stat: os.stat_result) -> str:
    """A cache key for a file git holds no blob id for: its size and modification time."""
    return f"stat:{stat.st_size}:{stat.st_mtime_ns}"


def read_source(path: Path) -> SourceText:
    """Read ``path`` as UTF-8 text unless it is over the size limit, binary or not UTF-8."""
    try:
        data = read_plain_prefix(path, MAX_SCAN_BYTES + 1)
    except OSError:
        return SourceText(None, SKIP_UNREADABLE)
    if len(data) > MAX_SCAN_BYTES:
        return SourceText(None, SKIP_HUGE)
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return SourceText(None, SKIP_BINARY)
    try:
        return SourceText(data.decode("utf-8-sig"), None)
    except UnicodeDecodeError:
        return SourceText(None, SKIP_NON_UTF8)
