"""Which guarded memories of a file an agent's edit falls under.

A guard on a whole file (a guarded memory with no symbol anchored in that file) covers every
edit of it. A guard on symbols covers an edit when the text the edit replaces touches the
definition of one of them as the file on disk defines it now: its decorators or attributes, its
lines, or the code line just before or just after it (an indented line added after a Python
function joins its body). Whenever that cannot be told for certain (a Write, a replaced text not
found in the file, a file with no grammar whose ranges the regex finder only guesses, a syntax
error in or beside the guarded code or the replaced lines, a symbol the parse does not find
there) the edit counts as under the guard: a guard is never missed for want of locating it. The
parser is loaded only for a file that has a guard on symbols.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall.genome.symbols.model import Definition
    from recall.model import Memory

Lines = tuple[int, int]
"""A stretch of 1-based lines, both ends included."""


@dataclass(frozen=True)
class Hits:
    """The guarded memories an edit falls under, and those among them on symbols that count
    only because the edit could not be placed."""

    memories: list[Memory]
    unplaced: frozenset[str] = field(default_factory=frozenset)


def replaced_lines(text: str, replaced: tuple[str, ...]) -> list[Lines] | None:
    """The lines of ``text`` each replaced text covers, at every place it occurs (an edit with
    ``replace_all`` changes them all); None when one of them does not occur. Line ends are
    compared as ``\\n`` whatever either side writes (line numbers are the same)."""
    text = _lf_ends(text)
    found: list[Lines] = []
    for old in replaced:
        old = _lf_ends(old)
        start = text.find(old)
        if start < 0:
            return None
        while start >= 0:
            first = text.count("\n", 0, start) + 1
            last = first + old.count("\n", 0, len(old) - 1)
            found.append((first, last))
            start = text.find(old, start + 1)
    return found


def _lf_ends(text: str) -> str:
    """``text`` with every line end (``\\r\\n``, a lone ``\\r``, ``\\n``) written ``\\n``."""
    from recall.line_ends import lone_cr_as_lf

    return lone_cr_as_lf(text).replace("\r\n", "\n")


def reach(definition: Definition, rows: list[str]) -> list[Lines]:
    """The lines an edit of ``definition`` touches: its decorators or attributes, its own
    lines, and the nearest non-blank line before and after it (``rows``: the file's lines);
    one stretch for each of its parts where other code stands between them (overloads)."""
    found: list[Lines] = []
    for first, last in definition.spans:
        before = first - 1
        while before > 1 and not rows[before - 1].strip():
            before -= 1
        after = last + 1
        while after < len(rows) and not rows[after - 1].strip():
            after += 1
        found.append((max(before, 1), min(after, max(len(rows), last))))
    return found


def _overlap(spans: list[Lines], lines: list[Lines]) -> bool:
    return any(a <= d and c <= b for a, b in spans for c, d in lines)


def _located(
    root: Path, path: str, replaced: tuple[str, ...], anchored: list[str]
) -> tuple[list[Definition], list[Lines], list[str]] | None:
    """The file's definitions, the lines the edit replaces and the file's lines, or None when
    they cannot be had for certain."""
    from recall.containment import read_plain_prefix
    from recall.genome.limits import MAX_SCAN_BYTES
    from recall.genome.symbols.extract import TREE_SITTER, extract
    from recall.genome.symbols.model import named

    try:
        data = read_plain_prefix(root / path, MAX_SCAN_BYTES + 1)
    except OSError:
        return None
    read = extract(path, data)
    if read.note is not None or read.parser != TREE_SITTER:
        return None  # no grammar (ranges only guessed), no parse, binary or too large
    text = _lf_ends(data.decode("utf-8", "replace"))
    lines = replaced_lines(text, replaced)
    if lines is None:
        return None
    rows = text.split("\n")
    if read.syntax_errors:
        near = list(lines)
        for name in anchored:
            near += [span for d in named(read.definitions, name) for span in reach(d, rows)]
        widened = [(max(a - 1, 1), b + 1) for a, b in read.error_lines]
        if _overlap(widened, near):
            return None  # a syntax error in or beside the guarded code or the edit
    return read.definitions, lines, rows


def guards_hit(
    root: Path | None, path: str, guarded: list[Memory], replaced: tuple[str, ...] | None
) -> Hits:
    """The memories of ``guarded`` (all guarded, all on ``path``) whose guard the edit falls
    under; ``replaced`` is what the edit replaces (None: the whole file)."""
    on_symbols = [m for m in guarded if any(a.path == path for a in m.anchors)]
    if not on_symbols:
        return Hits(guarded)
    unplaced = frozenset(m.id for m in on_symbols)
    if replaced is None or root is None:
        return Hits(guarded, unplaced)
    anchored = [a.name for m in on_symbols for a in m.anchors if a.path == path]
    located = _located(root, path, replaced, anchored)
    if located is None:
        return Hits(guarded, unplaced)
    from recall.genome.symbols.model import named

    definitions, lines, rows = located
    missed: set[str] = set()
    lost: set[str] = set()
    for memory in on_symbols:
        defined = [named(definitions, a.name) for a in memory.anchors if a.path == path]
        if not all(defined):
            lost.add(memory.id)  # a symbol the file does not define (now)
        elif not _overlap([s for found in defined for d in found for s in reach(d, rows)], lines):
            missed.add(memory.id)
    return Hits([m for m in guarded if m.id not in missed], frozenset(lost))
