"""An open document's definitions for placing diagnostics: its last parse, with the lines
carried through the edits typed since.

Parsing a document of thousands of lines takes longer than the rest of a keystroke's publish,
so a keystroke is placed from the last parse, its definitions moved by the lines the edits
added or removed above them (:mod:`lsp_server.line_shift`). Once typing pauses the text is
parsed again and the diagnostics published again if a placement changed
(:mod:`lsp_server.typing_pause`), so what stays on screen is what a parse of the text finds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsp_server.line_shift import LineEdit, first_line, last_line, line_edit
from lsp_server.symbol_at import grammar_definitions
from recall.genome.symbols.model import named

if TYPE_CHECKING:
    from lsprotocol import types

    from lsp_server.documents import DocState
    from recall.genome.symbols.model import Definition

MAX_CARRIED_EDITS = 500
"""Edits a parse is carried through before the next placement parses the text instead: each
lookup walks every edit since the parse, so a stream of changes with no pause (a paste sent as
keystrokes, a macro) would otherwise cost more per change than the parse it spares."""


@dataclass(frozen=True)
class DocumentParse:
    """The definitions a parse found in a document, and the edits made to it since."""

    text: str
    """The document's text these definitions are placed in (after the edits)."""
    definitions: tuple[Definition, ...] | None
    """What the parse found; None when no grammar read the document."""
    edits: tuple[LineEdit, ...] = ()
    """The edits made since the parse, in order; none when it parsed ``text`` itself."""

    @property
    def exact(self) -> bool:
        """Whether the definitions come from a parse of :attr:`text` itself."""
        return not self.edits

    def lines_of(self, name: str) -> tuple[int, int] | None:
        """The 1-based first and last line of the definition ``name`` designates (the first
        of several) in :attr:`text`, None when there is none or no grammar read the document."""
        if self.definitions is None:
            return None
        found = named(self.definitions, name)
        if not found:
            return None
        first, last = found[0].start, found[0].end
        if self.edits:
            first, last = first_line(first, self.edits), last_line(last, self.edits)
        return first, max(first, last)

    def moved(self, edits: Sequence[LineEdit], text: str) -> DocumentParse:
        """This parse after ``edits`` more, which made the document ``text``."""
        return DocumentParse(text, self.definitions, (*self.edits, *edits))


def parse_of(doc: DocState, text: str) -> DocumentParse:
    """The definitions of ``doc`` holding ``text``: the kept parse when it is of this text
    (carried through edits or not), else the warm-up's parse of the file on disk when the
    document holds that text (:mod:`lsp_server.warm_up`), else a parse of the text, kept."""
    kept = doc.parse
    if kept is not None and (kept.text is text or kept.text == text):
        return kept
    # taken whether it matches or not: a file opened is parsed from then on with its document
    ahead = doc.root.parsed_ahead.pop(doc.rel, None)
    if ahead is not None and ahead.text == text:
        doc.parse = ahead
        return ahead
    fresh = DocumentParse(text, grammar_definitions(doc.rel, text))
    doc.parse = fresh
    return fresh


def follow(
    doc: DocState, changes: Sequence[types.TextDocumentContentChangeEvent], text: str
) -> bool:
    """Carry ``doc``'s kept parse through ``changes``, which made its text ``text``; tell
    whether it is now carried (not a parse of ``text``). A change of the whole document
    drops it: the next placement parses."""
    kept = doc.parse
    if kept is None:
        return False
    if kept.text is text or kept.text == text:
        # Placed on this very text already: a publish inside this change's handling (another
        # process's write seen first) parsed it, and carrying it again would move it twice.
        return not kept.exact
    edits = [line_edit(change) for change in changes]
    if any(edit is None for edit in edits) or len(kept.edits) + len(edits) > MAX_CARRIED_EDITS:
        doc.parse = None
        return False
    doc.parse = kept.moved([e for e in edits if e is not None], text)
    return not doc.parse.exact
