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
    "code_hashes",
    "indented_hash",
    "named",
    "normalize_name",
    "parts_hashes",
    "python_hash",
    "same_code",
    "tight_hash",
]

LEGACY_HASH_CHARS: Final = 12
"""The length of a :func:`body_hash`, the first form, blind to whitespace runs only."""

INDENTED_HASH_CHARS: Final = 16
"""The length of an :func:`indented_hash`, the second form (Python: indentation counted)."""

CODE_HASH_CHARS: Final = 20
"""The length of the form written now (:func:`tight_hash`, :func:`python_hash`): a hash of
another length in an anchor was written by an earlier version and is compared with the
definition's hash of that form (:attr:`Definition.formers`), so it reads as current while its
code is unchanged."""


@dataclass(frozen=True)
class Definition:
    """One definition in a source file: its qualified name, kind and 1-based line range."""

    name: str
    kind: str
    start: int
    end: int
    body: str
    """Hash of the definition's code, blind to its layout (see :func:`tight_hash`); for Python,
    of its logical lines with their indentation and its decorators (see :func:`python_hash`)."""
    head: int = 0
    """The first line of the decorators or attributes written before the definition (0: none);
    they belong to it when an edit is judged, not to its indexed range."""
    formers: str = ""
    """The hashes of the earlier forms (:func:`body_hash`, and :func:`indented_hash` for
    Python), space-separated: a hash an earlier version recorded is compared with these."""
    parts: tuple[tuple[int, int], ...] = ()
    """For a symbol made of definitions that other code may stand between (C++ and Java
    overloads), the first line (its attributes or annotations included) and last line of
    each; empty for one that is a single stretch of text. Read from the source only, not
    stored in the index."""

    @property
    def spans(self) -> tuple[tuple[int, int], ...]:
        """The line stretches the symbol is written on, attributes or decorators included:
        its :attr:`parts`, or its one range."""
        return self.parts or ((self.head or self.start, self.end),)

    @property
    def leaf(self) -> str:
        """The last part of the qualified name (``save`` for ``Store.save``)."""
        return self.name.rpartition(SEPARATOR)[2]


def _digest(text: bytes, chars: int) -> str:
    """The hash of ``text`` in ``chars`` hex digits, the length each form is told apart by."""
    import hashlib  # indexing and writes only

    return hashlib.blake2b(text, digest_size=chars // 2).hexdigest()


def _lines_digest(lines: list[tuple[int, bytes]], chars: int) -> str:
    """The hash of ``lines`` (indentation, text), each indentation taken relative to the
    least, so that the whole shifted in or out hashes the same."""
    least = min((indent for indent, _ in lines), default=0)
    return _digest(b"\n".join(b"%d %s" % (indent - least, code) for indent, code in lines), chars)


def body_hash(data: bytes) -> str:
    """A hash of the first form (:data:`LEGACY_HASH_CHARS`): a definition's text with its
    whitespace runs made one space, blind to re-indentation and lines split where whitespace
    already was (anchors recorded then are compared with it)."""
    return _digest(b" ".join(data.split()), LEGACY_HASH_CHARS)


def indented_hash(data: bytes) -> str:
    """A hash of a definition's text (from the start of its first line, decorators included)
    that keeps each line's indentation relative to the least indented one: where indentation
    is syntax (Python), moving a line in or out of a block changes the code. Blank lines,
    trailing whitespace and whitespace runs inside a line are still layout; the whole
    definition shifted in or out (moved into a class) is not a change."""
    lines = []
    for raw in data.expandtabs(8).split(b"\n"):
        words = raw.split()
        if words:
            lines.append((len(raw) - len(raw.lstrip()), b" ".join(words)))
    return _lines_digest(lines, INDENTED_HASH_CHARS)


def tight_hash(data: bytes) -> str:
    """A hash of a definition's text blind to its layout (see :func:`tight_text`): what a
    formatter changes (spaces around operators, lines split or joined, a trailing comma) is
    not a change of the code the memory is about."""
    from recall.genome.symbols.layout import tight_text  # hashing only, not at start-up

    return _digest(tight_text(data), CODE_HASH_CHARS)


def python_hash(data: bytes) -> str:
    """A hash of a Python definition's text (from the start of its first line, decorators
    included) over its logical lines (see :func:`logical_lines`), each with its block depth
    (see :func:`nested`): moving a line in or out of a block changes the code; layout, line
    splits inside brackets, the quote style and the width of an indentation step do not, nor
    does shifting the whole definition in or out (moved into a class)."""
    from recall.genome.symbols.layout import logical_lines, nested

    return _lines_digest(nested(logical_lines(data)), CODE_HASH_CHARS)


def code_hashes(text: bytes, whole: bytes | None = None) -> tuple[str, str]:
    """A definition's hash and its earlier forms' (see :attr:`Definition.formers`): ``text``
    is the definition as its parser spans it; ``whole`` (Python) runs from the start of its
    first line, decorators included."""
    from recall.genome.symbols.layout import tightened

    squeezed = b" ".join(text.split())
    flat = _digest(squeezed, LEGACY_HASH_CHARS)  # body_hash, its squeeze shared
    if whole is None:
        return _digest(tightened(text, squeezed), CODE_HASH_CHARS), flat
    return python_hash(whole), f"{flat} {indented_hash(whole)}"


def parts_hashes(parts: list[bytes]) -> tuple[str, str]:
    """:func:`code_hashes` of a symbol made of the definitions ``parts`` (C++ and Java
    overloads): each part's text layout-blind, the parts in sorted order, so that moving one
    above another is no edit while an edit, an addition or a removal of any is. One part
    hashes as :func:`code_hashes` hashes its text alone."""
    from recall.genome.symbols.layout import tight_text

    tight = sorted(tight_text(part) for part in parts)  # one line each: no line break left
    flat = sorted(b" ".join(part.split()) for part in parts)
    return _digest(b"\n".join(tight), CODE_HASH_CHARS), _digest(b"\n".join(flat), LEGACY_HASH_CHARS)


def same_code(recorded: str, body: str, formers: str = "") -> bool:
    """Whether a hash ``recorded`` in an anchor is that of a definition whose hash is ``body``
    (``formers``: its hashes of the earlier forms): a hash of another length than ``body``
    was written by an earlier version and is compared with the hash of its own form."""
    if recorded == body:
        return True
    return len(recorded) != len(body) and recorded in formers.split()


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
