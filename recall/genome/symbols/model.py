"""What the symbol index knows of one definition, and the names and hashes it is found by."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from recall.anchors.symbols import NAME_SEPARATOR as SEPARATOR
from recall.anchors.symbols import normalize_name

__all__ = ["SEPARATOR", "Definition", "body_hash", "named", "normalize_name"]


@dataclass(frozen=True)
class Definition:
    """One definition in a source file: its qualified name, kind and 1-based line range."""

    name: str
    kind: str
    start: int
    end: int
    body: str
    """Hash of the definition's text with whitespace runs made one space (see :func:`body_hash`)."""
    head: int = 0
    """The first line of the decorators or attributes written before the definition (0: none);
    they belong to it when an edit is judged, not to its indexed range or hash."""

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


def named(definitions: Iterable[Definition], name: str) -> list[Definition]:
    """The definitions of one file that ``name`` (any spelling :func:`normalize_name` takes)
    designates: those named exactly so, else the one whose qualified name ends with it
    (``save`` finds ``Store.save``) when only one does. As the index's look-ups match."""
    wanted = normalize_name(name)
    found = list(definitions)
    exact = [d for d in found if d.name == wanted]
    if exact:
        return exact
    tails = [d for d in found if d.name.endswith(SEPARATOR + wanted)]
    return tails if len(tails) == 1 else []
