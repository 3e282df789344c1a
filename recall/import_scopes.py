"""Which store each line of a ``tether import`` goes to: the one its record's ``scope`` names
(``tether export --scope all`` writes both kinds in one file), unless the import is told one
store for every line (``--scope``, ``--global``)."""

from __future__ import annotations

import json
from typing import Any

from recall.errors import BadInput
from recall.locations import GLOBAL, PROJECT, SCOPES

BOM = "\ufeff"
"""The byte-order mark some editors put at the start of a file: not part of its first line."""


def line_scope(raw: str) -> str:
    """The store a line's record asks for: ``global`` when its ``scope`` says so, else
    ``project`` (no scope, another value, or a line that is not a JSON object: the project
    store's import reports what is wrong with it)."""
    # JSON spells a letter otherwise only as a \u escape: a line with neither "global" nor one
    # cannot name that scope (most lines; a commit body's \n or \" is no such escape)
    if GLOBAL not in raw and "\\u" not in raw:
        return PROJECT
    try:
        record = json.loads(raw)
    except ValueError:
        return PROJECT
    if isinstance(record, dict) and record.get("scope") == GLOBAL:
        return GLOBAL
    return PROJECT


def readable_scope(raw: str) -> str | None:
    """The store a line's record names (``project`` when it names none), or None when no
    store can be chosen by it: not a JSON object, or a ``scope`` that names neither store.
    Such a line is refused on its own line by whichever store's import reads it."""
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    scope = record.get("scope", PROJECT)
    return scope if scope in SCOPES else None


def by_scope(lines: list[str], *, project: bool = True) -> dict[str, list[str]]:
    """``lines`` split by the store each asks for (:func:`line_scope`), each part as long as
    ``lines`` with the other store's lines left blank, so that every line keeps its number.
    Only a scope some line asks for is a key: the other store is not opened. Without a
    ``project`` store (outside any repository) a line no store can be chosen by
    (:func:`readable_scope`) goes with the global lines, to be refused on its own line there,
    rather than asking for a project store that is not there and failing the whole import."""
    parts: dict[str, list[str]] = {}
    for at, raw in enumerate(lines):
        if not raw.strip():
            continue
        text = raw.removeprefix(BOM) if at == 0 else raw
        scope = line_scope(text) if project else (readable_scope(text) or GLOBAL)
        part = parts.get(scope)
        if part is None:  # not setdefault: its blank list would be built again for every line
            part = parts[scope] = [""] * len(lines)
        part[at] = raw
    return dict(sorted(parts.items(), key=lambda item: SCOPES.index(item[0])))


TOLD_OTHERWISE = "its scope is"
"""How the note of a line written to another store than its scope names begins."""


def told_otherwise(notes: list[str]) -> bool:
    """Whether ``notes`` (a line's) say it went to another store than its scope names."""
    return any(note.startswith(TOLD_OTHERWISE) for note in notes)


def scope_note(record: dict[str, Any], into: str) -> str | None:
    """A note for a line written to the ``into`` store whose record names the other scope
    (an import told to write every line to one store); :class:`BadInput` for a scope that
    is neither."""
    scope = record.get("scope")
    if scope is None or scope == into:
        return None
    if scope not in SCOPES:
        raise BadInput(f"'scope' must be 'project' or 'global', not {scope!r}")
    return (
        f"{TOLD_OTHERWISE} {scope!r}, but the import was told to put every line in the {into} "
        f"store (--scope {into}{' or --global' if into == GLOBAL else ''}); import it without "
        f"--scope or --global to put it in the {scope} store"
    )
