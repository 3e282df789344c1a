"""The definition under the cursor, for "remember something about this symbol".

The document's text is parsed as the symbol index parses files (tree-sitter, or the regex
finder), and the innermost definition holding the cursor's line is taken. The last few texts
parsed are kept, since an editor asks for code actions on every move of the cursor.
"""

from __future__ import annotations

import functools

from recall.genome.symbols.model import Definition

# Documents whose definitions are kept between two code-action requests.
PARSED_KEPT = 8


@functools.lru_cache(maxsize=PARSED_KEPT)
def _definitions(rel: str, text: str) -> tuple[Definition, ...]:
    from recall.genome.symbols.extract import extract

    return tuple(extract(rel, text.encode("utf-8", "surrogateescape")).definitions)


def symbol_at(rel: str, text: str, line: int) -> str | None:
    """The qualified name of the innermost definition holding 0-based ``line``, or None."""
    holding = [d for d in _definitions(rel, text) if d.start <= line + 1 <= d.end]
    if not holding:
        return None
    return min(holding, key=lambda d: (d.end - d.start, -d.start)).name
