"""The symbols a file defines that are spelt closest to an anchored name it does not define:
one matching for every front end (the CLI, the MCP server, the editor) and every command that
names such an anchor (a write, ``confirm``, ``repoint``, ``check``, and ``show``, ``doctor``
and the editor's hover for a ``gone`` anchor), with the helper that suggests files for a
mistyped path.

A note about an anchor kept without a body hash is an :class:`AnchorNote`: it reads as its
text and also carries the anchor and those names, which ``--json`` gives as
``anchor_suggestions`` beside ``anchor_notes`` (:func:`anchor_fields`); every command gives
those names in that one shape (:func:`suggestion_field`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from recall.anchors.symbols import NAME_SEPARATOR, SEPARATOR, leaf_of
from recall.closest_names import SUGGESTIONS, close_names
from recall.known_paths import or_list

SUGGESTIONS_KEY = "anchor_suggestions"
"""The JSON key of the closest names, by anchor, beside ``anchor_notes``."""


def close_symbols(wanted: str, names: Iterable[str]) -> list[str]:
    """The defined ``names`` (qualified as the anchor syntax takes them, ``Store.save``) spelt
    closest to the normalized ``wanted``, closest first, at most a few. Whole names are matched
    first, those with as many parts as ``wanted`` before the others (``Stor.sve`` is a member,
    not the class ``Store``), then the last part of each (``sve`` finds ``Store.save``, and in
    a file read without containers ``Store.sve`` finds ``save``). A container of ``wanted``
    itself (``Store`` for ``Store.sve``) is no answer: it was spelt right."""
    parts = wanted.split(NAME_SEPARATOR)
    containers = {NAME_SEPARATOR.join(parts[:end]) for end in range(1, len(parts))}
    known = [name for name in dict.fromkeys(names) if name not in containers]
    alike = [name for name in known if name.count(NAME_SEPARATOR) == len(parts) - 1]
    close = close_names(wanted, alike) or close_names(wanted, known)
    if not close:
        by_leaf: dict[str, list[str]] = {}
        for name in known:
            by_leaf.setdefault(leaf_of(name), []).append(name)
        close = [n for leaf in close_names(leaf_of(wanted), by_leaf) for n in by_leaf[leaf]]
    return list(dict.fromkeys(close))[:SUGGESTIONS]


def now_defines(path: str | None, close: Sequence[str]) -> str:
    """``; PATH now defines a or b, the closest names``, said of an anchored name ``path`` no
    longer defines (renamed where it is, or gone) with the ``close`` names it does, or ``""``
    when there are none."""
    if not close:
        return ""
    names = "the closest name" if len(close) == 1 else "the closest names"
    return f"; {path} now defines {or_list(close)}, {names}"


def renamed_in_place_fix(memory_id: str, path: str) -> str:
    """What ties ``memory_id`` to a name its anchored file ``path`` now defines in place of
    the anchored one (renamed where it is): ``repoint`` follows a symbol into another file
    only, so the memory is superseded with the new name."""
    return (
        "repoint follows a symbol into another file, not to a new name in its own: "
        f"`tether supersede {memory_id} SUMMARY --anchor {path}{SEPARATOR}NAME` ties the "
        "memory to it"
    )


def suggestion_field(close: Iterable[tuple[str, Sequence[str]]]) -> dict[str, Any]:
    """``{"anchor_suggestions": {anchor: names}}`` for the ``(anchor, names)`` pairs given
    whose names are not empty (closest first, as :func:`close_symbols` gives them); an empty
    dict when none has any, so that the field is left out."""
    found = {anchor: list(names) for anchor, names in close if names}
    return {SUGGESTIONS_KEY: found} if found else {}


class AnchorNote(str):
    """A note about one anchor (``path::name``) as given: its text, and the names its file
    defines spelt closest to that name (none when the file defines no name close to it, or the
    note is not about a name the file lacks)."""

    anchor: str
    close: tuple[str, ...]

    def __new__(cls, text: str, anchor: str, close: Iterable[str] = ()) -> AnchorNote:
        """The note ``text`` about ``anchor``, with the ``close`` names of its file."""
        note = super().__new__(cls, text)
        note.anchor, note.close = anchor, tuple(close)
        return note


def anchor_fields(notes: list[str]) -> dict[str, Any]:
    """The JSON fields for a write's notes about its anchors: ``anchor_notes`` (the notes, as
    before) and ``anchor_suggestions`` (for each anchor whose file defines no such name but
    some spelt close to it, those names, closest first); each left out when empty."""
    fields: dict[str, Any] = {}
    if notes:
        fields["anchor_notes"] = list(notes)
    fields.update(suggestion_field((n.anchor, n.close) for n in notes if isinstance(n, AnchorNote)))
    return fields
