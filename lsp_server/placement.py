"""Where a memory's diagnostic goes in a document: on the definition of a symbol it anchors.

The document's own text is parsed (the grammar of its language, as the symbol index reads
files) and the anchored qualified name is looked up among its definitions, so
``src/store.py::Store.save`` lands on ``Store.save`` and never on ``Other.save``. A symbol
anchored in another file counts here only when the symbol index says it moved to this file; a
same-named definition here is another function. Where no grammar reads the document, the
anchored name is found by the regular expression on its last part. A memory whose symbols the
parse does not find here is placed as a memory without anchors is: on its older single anchor
inside its own file, else on the first line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from lsp_server.anchors import Span, definition_span, first_line, is_line_range, locate
from lsp_server.symbol_at import grammar_definitions
from recall.anchors.symbols import SymbolAnchor
from recall.genome.symbols.model import Definition, named
from recall.model import Memory

MovedHere = Callable[[list[SymbolAnchor]], list[SymbolAnchor]]
"""Of some anchors of other files, those the symbol index finds relocated to this document."""


def span_of(memory: Memory, rel: str, text: str, moved_here: MovedHere) -> Span:
    """Where ``memory``'s diagnostic goes in the document ``rel`` holding ``text``."""
    here = [a for a in memory.anchors if a.path == rel]
    elsewhere = [a for a in memory.anchors if a.path != rel]
    definitions = grammar_definitions(rel, text) if memory.anchors or memory.anchor else None
    span = _first_found(here, text, definitions)
    if span is None and elsewhere:
        span = _first_found(moved_here(elsewhere), text, definitions)
    if span is not None:
        return span
    if memory.anchor and rel in memory.files:
        if is_line_range(memory.anchor) or definitions is None:
            found = locate(memory.anchor, text)
        else:
            found = _first_found([SymbolAnchor(rel, memory.anchor)], text, definitions)
        if found is not None:
            return found
    return first_line(text)


def _first_found(
    anchors: Iterable[SymbolAnchor], text: str, definitions: tuple[Definition, ...] | None
) -> Span | None:
    for anchor in anchors:
        if definitions is None:  # no grammar reads this document: the name's last part
            span = locate(anchor.name, text)
            if span is not None:
                return span
            continue
        found = named(definitions, anchor.name)
        if found:
            return definition_span(text, found[0].start, found[0].end, anchor.name)
    return None
