"""Git's merge conflict markers left in a memory file: such a file holds both sides of a merge
and the markers, and read as a memory it would show agents a summary of ``<<<<<<< HEAD``. A
file is taken to hold a conflict only when the three markers git writes come in order, each at
the start of its line, so that details quoting a single ``=======`` or one diff line are read
as written."""

from __future__ import annotations

import re
from pathlib import Path

from recall.errors import MalformedMemory

_OPENING = re.compile(r"^<<<<<<<(?: [^\n]*)?\r?$", re.MULTILINE)
_SEPARATOR = re.compile(r"^=======\r?$", re.MULTILINE)
_CLOSING = re.compile(r"^>>>>>>>(?: [^\n]*)?\r?$", re.MULTILINE)
CONFLICT_PROBLEM = "unresolved merge conflict: resolve it (keep one side or both) and commit"
"""What is said, at the first marker, of a memory file holding a conflict."""


def conflict_line(text: str) -> int | None:
    """The 1-based line of the first opening marker of a merge conflict git left in ``text``
    (an opening, then a separator, then a closing marker, each a line of its own); None when
    it holds none."""
    if "<<<<<<<" not in text:  # most files: no scan
        return None
    # the first opening is the one to follow: a later one has no closing marker after its
    # separator unless the first has
    opening = _OPENING.search(text)
    if opening is None:
        return None
    separator = _SEPARATOR.search(text, opening.end())
    if separator is None or _CLOSING.search(text, separator.end()) is None:
        return None
    return text.count("\n", 0, opening.start()) + 1


def refuse_conflict(text: str, path: Path | str) -> None:
    """Raise :class:`MalformedMemory` at the first marker when ``text`` holds a merge conflict
    git left unresolved (see :func:`conflict_line`)."""
    line = conflict_line(text)
    if line is not None:
        raise MalformedMemory(str(path), line, CONFLICT_PROBLEM)
