"""Where a memory's anchor is in a document: a line range or a symbol, found in the text.

Spans are in code points; :mod:`lsp_server.positions` turns them into the client's units. An
anchor that cannot be found (a line past the end, a symbol no longer there) gives None, and the
caller falls back to the first line. Lines end where the client's do (a lone ``\\r`` too): each
function reads the text through :func:`recall.line_ends.lone_cr_as_lf`, which keeps every offset.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from recall.line_ends import lone_cr_as_lf

_LINES = re.compile(r"^\s*#?L?(\d+)(?:\s*(?:-|–|\.\.|,)\s*L?(\d+))?\s*$", re.IGNORECASE)
_SYMBOL = re.compile(r"[A-Za-z_$][\w$]*")
_QUALIFIERS = re.compile(r"::|[.#/]")
# Keywords that introduce a definition in the languages people anchor memories in most.
_DEFINERS = (
    "def|class|function|func|fn|interface|type|struct|enum|trait|impl|module|object|val|var|"
    "let|const|macro|sub|proc|record|namespace|package"
)
_MODIFIERS = (
    "export|pub|public|private|protected|internal|static|async|default|abstract|final|"
    "override|inline|extern|unsafe|open|sealed|data|suspend|declare"
)


@dataclass(frozen=True)
class Span:
    """A stretch of a document: 0-based lines, columns in code points, end exclusive."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def contains(self, line: int, col: int) -> bool:
        """Whether the position lies inside the span (its end included, as hovers expect)."""
        return (self.start_line, self.start_col) <= (line, col) <= (self.end_line, self.end_col)


def line_text(source: str, line: int) -> str:
    """The text of one 0-based line, without its line break ('' past the end)."""
    source = lone_cr_as_lf(source)
    parts = source.split("\n", line + 1)
    if line >= len(parts):
        return ""
    return parts[line].rstrip("\r")


def first_line(source: str) -> Span:
    """The whole first line: where a memory without a (found) anchor is shown."""
    source = lone_cr_as_lf(source)
    end = source.find("\n")
    text = source if end < 0 else source[:end]
    return Span(0, 0, 0, len(text.rstrip("\r")))


def locate(anchor: str | None, source: str) -> Span | None:
    """The span an anchor names in ``source``, or None when it has none or it is not there."""
    if not anchor or not anchor.strip():
        return None
    source = lone_cr_as_lf(source)
    lines = _LINES.match(anchor)
    if lines:
        return _line_range(source, int(lines.group(1)), int(lines.group(2) or lines.group(1)))
    return _symbol(anchor, source)


def is_line_range(anchor: str) -> bool:
    """Whether an anchor names a line range (``12-30``, ``L12``) rather than a symbol."""
    return _LINES.match(anchor) is not None


def _line_range(source: str, first: int, last: int) -> Span | None:
    if first < 1:
        return None
    first, last = min(first, last), max(first, last)
    total = source.count("\n") + 1
    if first > total:
        return None
    last = min(last, total)
    return Span(first - 1, 0, last - 1, len(line_text(source, last - 1)))


def symbol_name(anchor: str) -> str | None:
    """The name to look for: the last part of a qualified name, without a call's ``()``."""
    text = anchor.strip()
    if text.endswith("()"):
        text = text[:-2]
    parts = [p for p in _QUALIFIERS.split(text) if p]
    if not parts:
        return None
    name = parts[-1].strip()
    return name if _SYMBOL.fullmatch(name) else None


DEFINITION_LOOKBACK_LINES = 3
"""Lines above a mention of the name that a definition's keywords may start on (``export
default`` on one line, ``function name`` on the next): the definition pattern is tried from that
far back only, around each mention, never over the whole document."""


@functools.lru_cache(maxsize=512)
def _definition(name: str) -> re.Pattern[str]:
    word = re.escape(name)
    return re.compile(
        rf"^[ \t]*(?:(?:{_MODIFIERS})\s+)*(?:{_DEFINERS})\s+(?P<name>{word})(?![\w$])",
        re.MULTILINE,
    )


_WORD_CHAR = re.compile(r"[\w$]")


def _mentions(name: str, source: str) -> Iterator[int]:
    """Where ``name`` occurs in ``source`` as a whole word (not inside a longer name)."""
    size = len(name)
    start = source.find(name)
    while start >= 0:
        end = start + size
        if not (start and _WORD_CHAR.match(source, start - 1)) and not _WORD_CHAR.match(
            source, end
        ):
            yield start
        start = source.find(name, start + 1)


def _defined_at(definition: re.Pattern[str], source: str, start: int, size: int) -> bool:
    """Whether the mention at ``start`` is the name of a definition whose keywords begin on its
    line or at most :data:`DEFINITION_LOOKBACK_LINES` lines above."""
    end = start + size
    line_start = source.rfind("\n", 0, start) + 1
    for _ in range(DEFINITION_LOOKBACK_LINES + 1):
        found = definition.match(source, line_start, end)
        if found is not None and found.start("name") == start:
            return True
        if line_start == 0:
            break
        line_start = source.rfind("\n", 0, line_start - 1) + 1
    return False


def _symbol(anchor: str, source: str) -> Span | None:
    name = symbol_name(anchor)
    if name is None:
        return None
    definition = _definition(name)
    first = None
    for start in _mentions(name, source):
        if first is None:
            first = start
        if _defined_at(definition, source, start, len(name)):
            first = start
            break
    if first is None:
        return None
    line = source.count("\n", 0, first)
    col = first - (source.rfind("\n", 0, first) + 1)
    return Span(line, col, line, col + len(name))


def definition_span(source: str, first: int, last: int, name: str) -> Span:
    """Where a definition spanning the 1-based lines ``first``..``last`` of ``source`` is shown:
    the first whole-word mention of its (last) name there, else its whole first line."""
    source = lone_cr_as_lf(source)
    leaf = symbol_name(name)
    start = 0
    for _ in range(first - 1):
        start = source.find("\n", start) + 1
        if start == 0:
            return first_line(source)
    end = start
    for _ in range(last - first + 1):
        end = source.find("\n", end) + 1
        if end == 0:
            end = len(source)
            break
    if leaf:
        for at in _mentions(leaf, source[start:end]):
            line = first - 1 + source.count("\n", start, start + at)
            col = start + at - (source.rfind("\n", 0, start + at) + 1)
            return Span(line, col, line, col + len(leaf))
    text = line_text(source, first - 1)
    return Span(first - 1, 0, first - 1, len(text))
