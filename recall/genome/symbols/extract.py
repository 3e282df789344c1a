"""The definitions of one file: tree-sitter where its grammar loads, the regex finder elsewhere.

Never raises for what a file holds: a binary or oversized file gives no definitions and the
reason, a file the grammar cannot make sense of falls back to the regex finder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from recall.genome.limits import BINARY_SNIFF_BYTES, MAX_SCAN_BYTES
from recall.genome.symbols import grammars, regex
from recall.genome.symbols.model import Definition

TREE_SITTER = "tree-sitter"
REGEX = "regex"
SKIPPED_BINARY = "skipped: binary"
SKIPPED_HUGE = "skipped: over the size limit"


@dataclass(frozen=True)
class Extracted:
    """What one file defines, and how it was read (``tree-sitter``, ``regex`` or ``skipped: …``)."""

    definitions: list[Definition] = field(default_factory=list)
    parser: str = REGEX
    note: str | None = None
    """Why the fallback was used (a grammar that did not load, a file that did not parse)."""
    syntax_errors: bool = False
    """The grammar read the file but found syntax errors in it: ranges near them may be off."""


def extract(path: str, data: bytes) -> Extracted:
    """The definitions in ``data``, the content of the file at ``path``."""
    if len(data) > MAX_SCAN_BYTES:
        return Extracted([], SKIPPED_HUGE)
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return Extracted([], SKIPPED_BINARY)
    name = grammars.grammar_name(path)
    note = None
    if name is not None:
        loaded = grammars.load(name)
        if loaded.parser is not None:
            try:
                tree = loaded.parser.parse(data)
                from recall.genome.symbols.treesitter import definitions

                found = definitions(tree.root_node, name, data)
            except Exception as error:  # a grammar bug must cost the file, not the index
                note = f"the {name} parser failed on {path} ({error})"
            else:
                if found or not tree.root_node.has_error:
                    return Extracted(found, TREE_SITTER, syntax_errors=tree.root_node.has_error)
                note = f"{path} did not parse as {name}"
        else:
            note = loaded.error
    text = data.decode("utf-8", "replace")
    return Extracted(regex.definitions(text), REGEX, note)


def read_file(path: str, full_path: str) -> Extracted:
    """:func:`extract` of the file on disk at ``full_path`` (``path`` names it in messages)."""
    try:
        with open(full_path, "rb") as handle:
            data = handle.read(MAX_SCAN_BYTES + 1)
    except OSError as error:
        return Extracted([], f"skipped: unreadable ({error.strerror or error})")
    return extract(path, data)
