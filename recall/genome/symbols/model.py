"""What the symbol index knows of one definition, and the names and hashes it is found by."""

from __future__ import annotations

from dataclasses import dataclass

from recall.anchors.symbols import NAME_SEPARATOR as SEPARATOR
from recall.anchors.symbols import normalize_name

__all__ = ["SEPARATOR", "Definition", "body_hash", "normalize_name"]


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


def body_hash(data: bytes) -> str:
    """A short hash of a definition's text, blind to re-indentation and reflowed whitespace
    (a change of layout is not a change of the code the memory is about)."""
    import hashlib  # indexing and writes only

    squeezed = b" ".join(data.split())
    return hashlib.blake2b(squeezed, digest_size=6).hexdigest()
