"""The fallback definition finder: regular expressions over lines, for files no grammar reads.

It finds definitions introduced by a keyword (``def``, ``class``, ``fn``, ``struct``…) and C-style
functions (a name and an opening parenthesis at the start of a line, not ending a declaration).
A definition runs to the line before the next one found at the same or a lesser indentation
(before its decorators, where indentation is syntax: they belong to the definition they lead).
Names are not qualified by their containers: the fallback knows no nesting.
"""

from __future__ import annotations

import re
from typing import Final

from recall.genome.symbols.model import Definition, code_hashes

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
    heads = [
        _decorators_start(lines, index, indent) if indented else index
        for index, indent, *_ in starts
    ]
    found_defs: list[Definition] = []
    for position, (index, indent, name, kind) in enumerate(starts):
        end = len(lines)
        for later in range(position + 1, len(starts)):
            if starts[later][1] <= indent:
                end = heads[later]  # the next one's decorators are its own
                break
        while end - 1 > index and not lines[end - 1].strip():
            end -= 1
        chunk = "\n".join(lines[index:end]).encode("utf-8", "surrogateescape")
        head = heads[position]
        whole = None
        if indented:
            whole = "\n".join(lines[head:end]).encode("utf-8", "surrogateescape")
        body, formers = code_hashes(chunk, whole)
        decorated = head + 1 if indented and head < index else 0
        found_defs.append(Definition(name, kind, index + 1, end, body, decorated, formers))
    return found_defs


def _decorators_start(lines: list[str], index: int, indent: int) -> int:
    """The 0-based line of the first decorator (``@name``) written before the definition on
    line ``index`` at its ``indent``; ``index`` when it has none. Comments at that indent and the
    deeper lines of a decorator spread over several lines do not end the run; as tree-sitter
    reads it, the decorators belong to the definition (its hash and its head)."""
    first = index
    for at in range(index - 1, -1, -1):
        line = lines[at]
        text = line.lstrip()
        if not text:
            break
        depth = len(line[: len(line) - len(text)].expandtabs())
        if depth == indent and text.startswith("@"):
            first = at
        elif depth < indent or (depth == indent and not text.startswith(("#", ")", "]", "}"))):
            break
    return first
