"""Where a memory's diagnostic goes in a document: on the definition of a symbol it anchors.

The document's own text is parsed (the grammar of its language, as the symbol index reads
files) and the anchored qualified name is looked up among its definitions, so
``src/store.py::Store.save`` lands on ``Store.save`` and never on ``Other.save``. A symbol
anchored in another file counts here only when the symbol index says it moved to this file; a
same-named definition here is another function. Where no grammar reads the document, the
anchored name is found by the regular expression on its last part. A memory whose symbols the
parse does not find here is placed as a memory without anchors is: on its older single anchor
(a definition the parse finds, else the name as the expression finds it) in any document it is
shown on, its own file under this name or another, else on the first line.

While typing goes on, the definitions are the document's last parse with their lines moved by
the edits since (:mod:`lsp_server.doc_parse`); the caller passes them in.
"""

from __future__ import annotations

from collections.abc import Callable

from lsp_server.anchors import Span, definition_span, first_line, is_line_range, locate
from lsp_server.doc_parse import DocumentParse
from lsp_server.symbol_at import grammar_definitions
from recall.anchors.symbols import SymbolAnchor
from recall.model import Memory

MovedHere = Callable[[list[SymbolAnchor]], list[SymbolAnchor]]
"""Of some anchors of other files, those the symbol index finds relocated to this document."""

ParseOf = Callable[[], DocumentParse]
"""The definitions of the document, asked for only when a memory anchors a symbol."""


def span_of(
    memory: Memory, rel: str, text: str, moved_here: MovedHere, parse: ParseOf | None = None
) -> Span:
    """Where ``memory``'s diagnostic goes in the document ``rel`` holding ``text``. Its
    definitions come from ``parse`` (by default a parse of ``text``, kept for the next memory
    and the next publish of the same text), asked only when the memory anchors something that
    could be here."""
    parse = parse or (lambda: DocumentParse(text, grammar_definitions(rel, text)))
    here = [a for a in memory.anchors if a.path == rel]
    elsewhere = [a for a in memory.anchors if a.path != rel]
    span = _first_found(here, text, parse)
    if span is None and elsewhere:
        span = _first_found(moved_here(elsewhere), text, parse)
    if span is not None:
        return span
    if memory.anchor:  # the older anchor: inside the memory's file, or that file renamed here
        found = None
        if not is_line_range(memory.anchor):
            found = _first_found([SymbolAnchor(rel, memory.anchor)], text, parse)
        # a line range, or a name that is not a definition (a variable, say): as before
        found = found or locate(memory.anchor, text)
        if found is not None:
            return found
    return first_line(text)


def _first_found(anchors: list[SymbolAnchor], text: str, parse: ParseOf) -> Span | None:
    if not anchors:
        return None
    parsed = parse()
    for anchor in anchors:
        if parsed.definitions is None:  # no grammar reads this document: the name's last part
            span = locate(anchor.name, text)
            if span is not None:
                return span
            continue
        lines = parsed.lines_of(anchor.name)
        if lines is not None:
            return definition_span(text, lines[0], lines[1], anchor.name)
    return None
