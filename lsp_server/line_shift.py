"""A line of a document carried through the edits made to it since: where a definition found
by an earlier parse is now, until the document is parsed again.

An edit replaces a stretch of the text (LSP range: 0-based lines, columns in the client's
units) with new text. Only line numbers move a definition here, so an edit is kept as its lines,
whether its ends sit at the start of a line, and how many lines it inserts; the column units
never matter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lsprotocol import types

from recall.line_ends import lone_cr_as_lf


@dataclass(frozen=True, slots=True)
class LineEdit:
    """One replacement of a stretch of text, by its lines (0-based)."""

    start_line: int
    starts_line: bool
    """The replaced stretch begins at the start of its line (column 0)."""
    end_line: int
    ends_line_start: bool
    """The replaced stretch ends at the start of its line (column 0)."""
    new_lines: int
    """Line breaks in the inserted text, counted as LSP counts them (``\\r\\n``, ``\\r`` and
    ``\\n`` each one)."""

    @property
    def delta(self) -> int:
        """How many lines the text after the edit moves down (negative: up)."""
        return self.new_lines - (self.end_line - self.start_line)


def line_edit(change: types.TextDocumentContentChangeEvent) -> LineEdit | None:
    """The lines an incremental change replaces; None for a change of the whole document."""
    if not isinstance(change, types.TextDocumentContentChangePartial):
        return None
    start, end = change.range.start, change.range.end
    return LineEdit(
        start.line,
        start.character == 0,
        end.line,
        end.character == 0,
        lone_cr_as_lf(change.text).count("\n"),
    )


def first_line(line: int, edits: Sequence[LineEdit]) -> int:
    """Where the 1-based first line of a definition is after ``edits``, applied in order. Its
    start is the start of that line: text inserted there pushes it down; a replaced stretch
    holding it leaves it where the replacement begins."""
    at = line - 1
    for edit in edits:
        if at < edit.start_line or (at == edit.start_line and not edit.starts_line):
            continue
        if at > edit.end_line or (at == edit.end_line and edit.ends_line_start):
            at += edit.delta
        else:
            at = edit.start_line
    return at + 1


def last_line(line: int, edits: Sequence[LineEdit]) -> int:
    """Where the 1-based last line of a definition is after ``edits``, applied in order. Its
    end is the end of that line: an edit ending on it or above moves it by the lines the edit
    adds; a replaced stretch holding it moves it to the end of the replacement."""
    at = line - 1
    for edit in edits:
        if at < edit.start_line:
            continue
        if at >= edit.end_line:
            at += edit.delta
        else:
            at = edit.start_line + edit.new_lines
    return at + 1
