"""Why an anchored file's symbols are not read: a binary file, or one over the symbol reader's
size limit, defines nothing as far as Tether can tell, and a message saying "defines no NAME"
or "not found" would send a person looking for a symbol that may well be there. Each message
about such an anchor says instead that the file is not read, and why.
"""

from __future__ import annotations

from pathlib import Path

from recall.containment import read_plain_prefix
from recall.genome.limits import BINARY_SNIFF_BYTES, MAX_SCAN_BYTES
from recall.genome.symbols.extract import SKIPPED_BINARY, SKIPPED_HUGE, skipped_as

UNREAD_EFFECT = (  # what follows for the anchor, said after the reason
    "Tether cannot tell its code, so the anchor shows as unknown and `tether check` reviews "
    "the whole file for it"
)


def unread_why(path: str, skipped: str, size: int | None) -> str:
    """Why ``path`` (``size`` bytes, None when not known) is not read for symbols, from the
    reader's ``skipped: …`` verdict."""
    if skipped == SKIPPED_BINARY:
        why = f"it is binary (a NUL byte in its first {BINARY_SNIFF_BYTES:,} bytes)"
    elif skipped == SKIPPED_HUGE:
        bytes_ = f"{size:,} bytes" if size is not None else "larger"
        why = (
            f"it is {bytes_}, over the symbol reader's limit of {MAX_SCAN_BYTES:,} bytes "
            "(a fixed limit, no setting raises it: a file that large is taken as generated, "
            "vendored or data)"
        )
    else:
        why = skipped.removeprefix("skipped: ")
    return f"{path} is not read for symbols: {why}"


def unread_in_tree(root: Path | None, path: str) -> str | None:
    """Why the working tree's file ``path`` under ``root`` is not read for symbols, None when
    it is read (or is no file there)."""
    if root is None:
        return None
    full = Path(root) / path
    try:
        data = read_plain_prefix(full, MAX_SCAN_BYTES + 1)
        size = full.stat().st_size
    except OSError:
        return None
    skipped = skipped_as(data)
    return None if skipped is None else unread_why(path, skipped, size)


def unread_content(path: str, data: bytes) -> str | None:
    """Why ``path`` holding ``data`` (its whole content) is not read for symbols, None when
    it is read."""
    skipped = skipped_as(data)
    return None if skipped is None else unread_why(path, skipped, len(data))
