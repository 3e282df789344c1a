"""Turning code-point spans into LSP ranges in the encoding negotiated with the client."""

from __future__ import annotations

from lsprotocol import types

from lsp_server.anchors import Span, line_text


def units(text: str, encoding: str | None) -> int:
    """How many code units ``text`` takes in the position encoding (UTF-16 by default)."""
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def to_range(span: Span, source: str, encoding: str | None) -> types.Range:
    """The LSP range of ``span`` in ``source``."""
    if source.isascii():  # one code unit per code point in every encoding: no line to read
        return types.Range(
            start=types.Position(span.start_line, span.start_col),
            end=types.Position(span.end_line, span.end_col),
        )
    start_text = line_text(source, span.start_line)
    end_text = start_text if span.end_line == span.start_line else line_text(source, span.end_line)
    return types.Range(
        start=types.Position(span.start_line, units(start_text[: span.start_col], encoding)),
        end=types.Position(span.end_line, units(end_text[: span.end_col], encoding)),
    )


def contains(rng: types.Range, position: types.Position) -> bool:
    """Whether a position (client units) lies in a range, its end included."""
    start = (rng.start.line, rng.start.character)
    end = (rng.end.line, rng.end.character)
    return start <= (position.line, position.character) <= end


def overlaps(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges (client units) share at least one position."""
    a_start, a_end = (a.start.line, a.start.character), (a.end.line, a.end.character)
    b_start, b_end = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return a_start <= b_end and b_start <= a_end
