"""Typed settings declared once and read the same way by every reader: the engine's
(:mod:`recall.settings`) and the language server's (``lsp_server.configuration``).

A settings class is a frozen dataclass whose fields are declared with :func:`setting`: a
default, the parser of a value found in a file or sent by an editor, and any further key names.
:func:`apply` lays one source's table over the settings so far: known keys in any spelling
(``max-per-file``, ``maxPerFile``, ``max_per_file``), a bad value reported with the source and
the key and the value before it kept (the visible fallback), unknown keys left to other readers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import field as dataclass_field
from dataclasses import fields, replace
from functools import cache
from typing import Any, TypeVar

Warn = Callable[[str], None]
Parse = Callable[[Any], Any]
S = TypeVar("S")

_PARSE = "tether.parse"
_ALIASES = "tether.aliases"
_ONLY_OFF = "tether.only_off"
_MERGE = "tether.merge"


def fold_key(name: str) -> str:
    """A key in the one spelling every reader compares: ``archive-window-days`` and
    ``archiveWindowDays`` both become ``archivewindowdays``."""
    return name.replace("_", "").replace("-", "").casefold()


def setting(
    default: Any,
    parse: Parse,
    *aliases: str,
    only_off: bool = False,
    merge: bool = False,
) -> Any:
    """Declare a settings field: its default, the parser of its value, any further key names
    (in any spelling). ``only_off``: a flag any source may turn off and none back on. ``merge``:
    a table whose entries are laid over the ones before instead of replacing them all. A
    mutable default (a dict) is copied for each settings object."""
    metadata = {_PARSE: parse, _ALIASES: aliases, _ONLY_OFF: only_off, _MERGE: merge}
    if isinstance(default, dict):
        frozen = dict(default)
        return dataclass_field(default_factory=lambda: dict(frozen), metadata=metadata)
    return dataclass_field(default=default, metadata=metadata)


@cache
def keys_of(settings_class: type) -> dict[str, tuple[str, Parse]]:
    """Every key ``settings_class`` accepts (folded), mapped to its field name and parser."""
    keys: dict[str, tuple[str, Parse]] = {}
    for item in fields(settings_class):
        if _PARSE not in item.metadata:
            continue
        for name in (item.name, *item.metadata[_ALIASES]):
            keys[fold_key(name)] = (item.name, item.metadata[_PARSE])
    return keys


def only_off_fields(settings_class: type) -> frozenset[str]:
    """The fields of ``settings_class`` that, once off, stay off."""
    return frozenset(f.name for f in fields(settings_class) if f.metadata.get(_ONLY_OFF))


def apply(settings: S, source: str, values: Mapping[str, Any], warn: Warn) -> S:
    """``settings`` with the keys it knows in ``values`` applied; a bad value is reported
    (naming ``source`` and the key) and the value before it kept. Keys it does not know are
    left to other readers. An ``only_off`` flag already off stays off."""
    settings_class = type(settings)
    known = keys_of(settings_class)
    merged = {f.name for f in fields(settings_class) if f.metadata.get(_MERGE)}
    stays_off = only_off_fields(settings_class)
    changes: dict[str, Any] = {}
    for raw_key, value in values.items():
        entry = known.get(fold_key(str(raw_key)))
        if entry is None:
            continue
        name, parse = entry
        try:
            parsed = parse(value)
        except ValueError as error:
            warn(f"{source}: ignoring {raw_key} = {value!r}: {error}")
            continue
        if name in merged:
            parsed = {**getattr(settings, name), **changes.get(name, {}), **parsed}
        if name in stays_off:
            parsed = parsed and getattr(settings, name)
        changes[name] = parsed
    return replace(settings, **changes) if changes else settings  # type: ignore[type-var]


# -- value parsers ---------------------------------------------------------------------------


def count(value: Any) -> int:
    """A whole number, 0 or more."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("give a whole number, 0 or more")
    return value


def positive(value: Any) -> int:
    """A whole number above 0."""
    if count(value) == 0:
        raise ValueError("give a whole number above 0")
    return int(value)


def flag(value: Any) -> bool:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        raise ValueError("give true or false")
    return value


def one_of(*options: str) -> Parse:
    """A parser accepting one of ``options`` (compared without case); returns it lower-cased."""

    def parse(value: Any) -> str:
        if not isinstance(value, str) or value.casefold() not in options:
            raise ValueError(f"use one of {', '.join(options)}")
        return value.casefold()

    return parse


def names(allowed: Collection[str], what: str = "names") -> Parse:
    """A parser accepting a list of ``what`` drawn from ``allowed`` (or one); a tuple, each
    once, in the order given."""

    def parse(value: Any) -> tuple[str, ...]:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
            raise ValueError(f"give a list of {what}")
        unknown = [i for i in items if i not in allowed]
        if unknown:
            raise ValueError(f"unknown {unknown[0]!r}; use {', '.join(allowed)}")
        return tuple(dict.fromkeys(items))

    return parse
