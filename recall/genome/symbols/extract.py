"""The definitions of one file: tree-sitter where its grammar loads, the regex finder elsewhere.

Never raises for what a file holds: a binary or oversized file gives no definitions and the
reason, a file the grammar cannot make sense of falls back to the regex finder.

Lines are counted as an editor counts them: a lone ``\\r`` ends one (see
:mod:`recall.line_ends`), so the definitions of a file written with old Mac line ends are on
the lines the editor shows them on, and read as those of the same file written with ``\\n``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from recall.containment import read_plain_prefix
from recall.genome.limits import BINARY_SNIFF_BYTES, MAX_SCAN_BYTES
from recall.genome.symbols import grammars, regex
from recall.genome.symbols.grammars import INDENTED_GRAMMARS
from recall.genome.symbols.model import Definition
from recall.line_ends import lone_cr_as_lf

TREE_SITTER = "tree-sitter"
REGEX = "regex"
SKIPPED_BINARY = "skipped: binary"
SKIPPED_HUGE = "skipped: over the size limit"
SKIPPED_UNREADABLE = "skipped: the symbol reader failed on it"


@dataclass(frozen=True)
class Extracted:
    """What one file defines, and how it was read (``tree-sitter``, ``regex`` or ``skipped: …``)."""

    definitions: list[Definition] = field(default_factory=list)
    parser: str = REGEX
    note: str | None = None
    """Why the fallback was used (a grammar that did not load, a file that did not parse)."""
    syntax_errors: bool = False
    """The grammar read the file but found syntax errors in it: ranges near them may be off."""
    error_lines: tuple[tuple[int, int], ...] = ()
    """The 1-based line stretches of those syntax errors (the parser's error and missing nodes);
    the whole file when there are more than :data:`MAX_ERROR_SPANS` of them."""


MAX_ERROR_SPANS: Final = 64
"""Past this many syntax errors a file is read as broken throughout, not error by error: the
walk that finds them stays short on a file that is not code in the grammar's language."""


def extract(path: str, data: bytes, *, hashes: bool = True) -> Extracted:
    """The definitions in ``data``, the content of the file at ``path``; a grammar's without
    body hashes or decorator lines unless ``hashes`` (see
    :func:`recall.genome.symbols.treesitter.definitions`)."""
    skipped = skipped_as(data)
    if skipped is not None:
        return Extracted([], skipped)
    data = lone_cr_as_lf(data)  # the grammars and the regex finder break lines at "\n" only
    name = grammars.grammar_name(path)
    note = None
    if name is not None:
        loaded = grammars.load(name)
        if loaded.parser is not None:
            try:
                tree = loaded.parser.parse(data)
                from recall.genome.symbols.treesitter import definitions

                found = definitions(tree.root_node, name, data, hashes=hashes)
            except Exception as error:  # a grammar bug must cost the file, not the index
                note = f"the {name} parser failed on {path} ({error})"
            else:
                if found or not tree.root_node.has_error:
                    broken = tree.root_node.has_error
                    spans = _error_spans(tree.root_node) if broken else ()
                    return Extracted(found, TREE_SITTER, None, broken, spans)
                note = f"{path} did not parse as {name}"
        else:
            note = loaded.error
    text = data.decode("utf-8", "replace")
    indented = name in INDENTED_GRAMMARS
    try:
        found = regex.definitions(text, indented=indented)
    except Exception as error:  # a reader's bug must cost the file, not the index
        return Extracted([], SKIPPED_UNREADABLE, f"the regex finder failed on {path} ({error})")
    return Extracted(found, REGEX, note)


def skipped_as(data: bytes) -> str | None:
    """:data:`SKIPPED_HUGE` or :data:`SKIPPED_BINARY` when ``data`` (a file's content, or its
    first ``MAX_SCAN_BYTES + 1`` bytes) is not read for definitions, None when it is."""
    if len(data) > MAX_SCAN_BYTES:
        return SKIPPED_HUGE
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return SKIPPED_BINARY
    return None


def _error_spans(root: object) -> tuple[tuple[int, int], ...]:
    """The line stretches of the error and missing nodes under ``root``; the whole file when
    there are more than :data:`MAX_ERROR_SPANS` of them. Only subtrees holding an error are
    entered."""
    spans: list[tuple[int, int]] = []
    pending = [root]
    while pending:
        node: Any = pending.pop()
        if node.is_error or node.is_missing:
            spans.append((node.start_point[0] + 1, node.end_point[0] + 1))
            if len(spans) > MAX_ERROR_SPANS:
                return ((1, root.end_point[0] + 1),)  # type: ignore[attr-defined]
            continue
        pending.extend(c for c in node.children if c.has_error or c.is_missing)
    return tuple(sorted(spans))


def read_file(path: str, full_path: str) -> Extracted:
    """:func:`extract` of the file on disk at ``full_path`` (``path`` names it in messages)."""
    try:
        data = read_plain_prefix(full_path, MAX_SCAN_BYTES + 1)
    except OSError as error:
        return Extracted([], f"skipped: unreadable ({error.strerror or error})")
    return extract(path, data)
