"""What the symbol index knows of one definition, and the names and hashes it is found by."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from recall.anchors.symbols import NAME_SEPARATOR as SEPARATOR
from recall.anchors.symbols import normalize_name

__all__ = [
    "SEPARATOR",
    "Definition",
    "body_hash",
    "indented_hash",
    "named",
    "normalize_name",
    "same_code",
]

LEGACY_HASH_CHARS: Final = 12
"""The length of a :func:`body_hash`, the only form written before indentation counted for
Python: a recorded hash of this length is compared with the whitespace-blind hash, so an
anchor written then still reads as current while its code is unchanged."""


@dataclass(frozen=True)
class Definition:
    """One definition in a source file: its qualified name, kind and 1-based line range."""

    name: str
    kind: str
    start: int
    end: int
    body: str
    """Hash of the definition's text with whitespace runs made one space (see :func:`body_hash`);
    for Python, with its indentation and decorators (see :func:`indented_hash`)."""
    head: int = 0
    """The first line of the decorators or attributes written before the definition (0: none);
    they belong to it when an edit is judged, not to its indexed range."""
    flat: str = ""
    """The whitespace-blind :func:`body_hash` where ``body`` is another form (Python), to
    compare a hash recorded before that form with; empty when ``body`` is that hash."""

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


def indented_hash(data: bytes) -> str:
    """A hash of a definition's text (from the start of its first line, decorators included)
    that keeps each line's indentation relative to the least indented one: where indentation
    is syntax (Python), moving a line in or out of a block changes the code. Blank lines,
    trailing whitespace and whitespace runs inside a line are still layout; the whole
    definition shifted in or out (moved into a class) is not a change."""
    import hashlib

    lines = []
    for raw in data.expandtabs(8).split(b"\n"):
        words = raw.split()
        if words:
            lines.append((len(raw) - len(raw.lstrip()), b" ".join(words)))
    least = min((indent for indent, _ in lines), default=0)
    text = b"\n".join(b"%d %s" % (indent - least, words) for indent, words in lines)
    return hashlib.blake2b(text, digest_size=8).hexdigest()


def same_code(recorded: str, body: str, flat: str = "") -> bool:
    """Whether a hash ``recorded`` in an anchor is that of a definition whose hash is ``body``
    (and whose whitespace-blind hash is ``flat``, when another form): a hash of the old form
    (:data:`LEGACY_HASH_CHARS`) is compared with the whitespace-blind one."""
    if flat and len(recorded) == LEGACY_HASH_CHARS:
        return recorded == flat
    return recorded == body


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
