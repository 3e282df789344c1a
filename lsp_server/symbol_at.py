"""The definitions of an open document: the one under the cursor, for "remember something
about this symbol", and the ones a memory's diagnostic is placed on.

The document's text is parsed as the symbol index parses files (tree-sitter, or the regex
finder). The last few texts parsed are kept, since an editor asks for code actions on every
move of the cursor and a publish follows every change.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall.genome.symbols.extract import Extracted
    from recall.genome.symbols.model import Definition

# Documents whose definitions are kept between two requests or publishes.
PARSED_KEPT = 8


@functools.lru_cache(maxsize=PARSED_KEPT)
def parsed(rel: str, text: str) -> Extracted:
    """What the document at ``rel`` holding ``text`` defines, and how it was read."""
    from recall.genome.symbols.extract import extract

    # "surrogatepass": a client may send a lone surrogate ("\ud800"), which no other error
    # handler encodes; its three bytes stay on its line, so the lines keep their numbers.
    # Definitions are looked up by name here, never compared: no body hashes.
    return extract(rel, text.encode("utf-8", "surrogatepass"), hashes=False)


def grammar_definitions(rel: str, text: str) -> tuple[Definition, ...] | None:
    """The definitions a grammar found in the document; None when no grammar read it (none
    loads for its language, or it fell back to the regex finder)."""
    from recall.genome.symbols import grammars
    from recall.genome.symbols.extract import TREE_SITTER

    if grammars.grammar_name(rel) is None:  # not even the regex finder's reading is asked
        return None
    read = parsed(rel, text)
    return tuple(read.definitions) if read.parser == TREE_SITTER else None


def _definitions(rel: str, text: str) -> tuple[Definition, ...]:
    return tuple(parsed(rel, text).definitions)


def symbol_at(rel: str, text: str, line: int) -> str | None:
    """The qualified name of the innermost definition holding 0-based ``line``, or None (a
    line between two overloads is in neither: their symbol holds their own lines only)."""
    holding = [
        d
        for d in _definitions(rel, text)
        if any(first <= line + 1 <= last for first, last in d.parts or ((d.start, d.end),))
    ]
    if not holding:
        return None
    return min(holding, key=lambda d: (d.end - d.start, -d.start)).name
