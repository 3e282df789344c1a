"""What the symbol index knows of one definition, and the names and hashes it is found by."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

# A qualified name's parts are joined with a dot whatever the language wrote (``Store.save``
# for a Python method, ``Foo.bar`` for C++'s ``Foo::bar``), so one anchor finds either.
SEPARATOR: Final = "."
_QUALIFIER = re.compile(r"::|[#.]")
_SPACE_RUN = re.compile(rb"\s+")


@dataclass(frozen=True)
class Definition:
    """One definition in a source file: its qualified name, kind and 1-based line range."""

    name: str
    kind: str
    start: int
    end: int
    body: str
    """Hash of the definition's text with whitespace runs made one space (see :func:`body_hash`)."""

    @property
    def leaf(self) -> str:
        """The last part of the qualified name (``save`` for ``Store.save``)."""
        return self.name.rpartition(SEPARATOR)[2]


def normalize_name(name: str) -> str:
    """A symbol name as the index keys it: qualifiers joined by dots, no call parentheses."""
    text = name.strip()
    if text.endswith("()"):
        text = text[:-2]
    parts = [part.strip() for part in _QUALIFIER.split(text)]
    return SEPARATOR.join(part for part in parts if part)


def body_hash(data: bytes) -> str:
    """A short hash of a definition's text, blind to re-indentation and reflowed whitespace
    (a change of layout is not a change of the code the memory is about)."""
    import hashlib  # indexing and writes only

    squeezed = _SPACE_RUN.sub(b" ", data).strip()
    return hashlib.blake2b(squeezed, digest_size=6).hexdigest()
