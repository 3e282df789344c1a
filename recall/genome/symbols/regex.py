"""The fallback definition finder: regular expressions over lines, for files no grammar reads.

It finds definitions introduced by a keyword (``def``, ``class``, ``fn``, ``struct``…) and C-style
functions (a name and an opening parenthesis at the start of a line, not ending a declaration).
A definition runs to the line before the next one found at the same or a lesser indentation.
Names are not qualified by their containers: the fallback knows no nesting.
"""

from __future__ import annotations

import re
from typing import Final

from recall.genome.symbols.model import Definition, body_hash, indented_hash

_DEFINERS: Final = (
    "def|class|function|func|fn|interface|type|struct|enum|trait|impl|module|object|"
    "macro|sub|proc|record|namespace|union|fun"
)
_MODIFIERS: Final = (
    "export|pub|public|private|protected|internal|static|async|default|abstract|final|"
    "override|inline|extern|unsafe|open|sealed|data|suspend|declare"
)
_KEYWORD_DEF: Final = re.compile(
    rf"^(?P<indent>[ \t]*)(?:(?:{_MODIFIERS})\s+)*(?P<kind>{_DEFINERS})\s+"
    r"(?P<name>[A-Za-z_$][\w$]*)"
)
# `static int foo(` or `int\nfoo(` at column 0: a C-family function's name before its arguments.
_C_FUNCTION: Final = re.compile(r"^(?:[A-Za-z_][\w \t\*]*?[ \t\*])?(?P<name>[A-Za-z_]\w*)\s*\(")
_NOT_FUNCTIONS: Final = frozenset({"if", "for", "while", "switch", "return", "sizeof", "else"})
_KINDS: Final = {"def": "function", "fn": "function", "func": "function", "fun": "function"}


def definitions(text: str, *, indented: bool = False) -> list[Definition]:
    """The definitions the patterns find in ``text``, in source order; ``indented`` for a
    language where indentation is syntax (its hashes keep it: see
    :func:`recall.genome.symbols.model.indented_hash`)."""
    lines = text.split("\n")
    starts: list[tuple[int, int, str, str]] = []  # (line index, indent, name, kind)
    for index, line in enumerate(lines):
        match = _KEYWORD_DEF.match(line)
        if match is not None:
            kind = match["kind"]
            starts.append(
                (index, len(match["indent"].expandtabs()), match["name"], _KINDS.get(kind, kind))
            )
            continue
        found = _C_FUNCTION.match(line)
        if (
            found is not None
            and found["name"] not in _NOT_FUNCTIONS
            and not line.rstrip().endswith(";")
        ):
            starts.append((index, 0, found["name"], "function"))
    found_defs: list[Definition] = []
    for position, (index, indent, name, kind) in enumerate(starts):
        end = len(lines)
        for later, later_indent, _, _ in starts[position + 1 :]:
            if later_indent <= indent:
                end = later
                break
        while end - 1 > index and not lines[end - 1].strip():
            end -= 1
        chunk = "\n".join(lines[index:end]).encode("utf-8", "surrogateescape")
        flat = body_hash(chunk)
        if indented:
            body = indented_hash(chunk)
            found_defs.append(Definition(name, kind, index + 1, end, body, flat=flat))
        else:
            found_defs.append(Definition(name, kind, index + 1, end, flat))
    return found_defs
