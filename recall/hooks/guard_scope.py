"""Which guarded memories of a file an agent's edit falls under.

A guard on a whole file (a guarded memory with no symbol anchored in that file) covers every
edit of it. A guard on symbols covers an edit only when the text the edit replaces overlaps the
definition of one of them, as the file on disk defines it now. Whenever that cannot be told (a
Write, a replaced text not found in the file, a file that does not parse, a symbol the parse
does not find there) the edit counts as under the guard: a guard is never missed for want of
locating it. The parser is loaded only for a file that has a guard on symbols.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall.genome.symbols.model import Definition
    from recall.model import Memory

Lines = tuple[int, int]
"""A stretch of 1-based lines, both ends included."""


def replaced_lines(text: str, replaced: tuple[str, ...]) -> list[Lines] | None:
    """The lines of ``text`` each replaced text covers, at every place it occurs (an edit with
    ``replace_all`` changes them all); None when one of them does not occur."""
    found: list[Lines] = []
    for old in replaced:
        start = text.find(old)
        if start < 0:
            return None
        while start >= 0:
            first = text.count("\n", 0, start) + 1
            last = first + old.count("\n", 0, len(old) - 1)
            found.append((first, last))
            start = text.find(old, start + 1)
    return found


def _overlaps(definition: Definition, lines: list[Lines]) -> bool:
    return any(first <= definition.end and definition.start <= last for first, last in lines)


def _located(
    root: Path, path: str, replaced: tuple[str, ...]
) -> tuple[list[Definition], list[Lines]] | None:
    """The file's definitions and the lines the edit replaces, or None when either cannot be
    had for certain."""
    from recall.genome.limits import MAX_SCAN_BYTES
    from recall.genome.symbols.extract import extract

    try:
        with open(root / path, "rb") as handle:
            data = handle.read(MAX_SCAN_BYTES + 1)
    except OSError:
        return None
    read = extract(path, data)
    if read.note is not None or read.syntax_errors or read.parser.startswith("skipped"):
        return None  # it does not parse cleanly, or it is binary or too large
    lines = replaced_lines(data.decode("utf-8", "replace"), replaced)
    if lines is None:
        return None
    return read.definitions, lines


def guards_hit(
    root: Path | None, path: str, guarded: list[Memory], replaced: tuple[str, ...] | None
) -> list[Memory]:
    """The memories of ``guarded`` (all guarded, all on ``path``) whose guard the edit falls
    under; ``replaced`` is what the edit replaces (None: the whole file)."""
    on_symbols = [m for m in guarded if any(a.path == path for a in m.anchors)]
    if not on_symbols or replaced is None or root is None:
        return guarded
    located = _located(root, path, replaced)
    if located is None:
        return guarded
    from recall.genome.symbols.model import named

    definitions, lines = located
    missed: set[str] = set()
    for memory in on_symbols:
        anchored = [a for a in memory.anchors if a.path == path]
        defined = [named(definitions, a.name) for a in anchored]
        if all(found and not any(_overlaps(d, lines) for d in found) for found in defined):
            missed.add(memory.id)
    return [m for m in guarded if m.id not in missed]
