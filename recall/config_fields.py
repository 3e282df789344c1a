"""Typed settings declared once and read the same way by every reader: the engine's
(:mod:`recall.settings`) and the language server's (``lsp_server.configuration``).

A settings class is a frozen dataclass whose fields are declared with :func:`setting`: a
default, the parser of a value found in a file or sent by an editor, and any further key names.
:func:`apply` lays one source's table over the settings so far: known keys in any spelling
(``max-per-file``, ``maxPerFile``, ``max_per_file``), a bad value reported with the source and
the key and the value before it kept (the visible fallback), unknown keys left to other readers.

A repository is untrusted input (anyone can clone one): a flag declared ``only_off`` can be
turned off by any source and back on by none, and a limit declared ``only_lower`` can be lowered
by a repository's settings but not raised above its default (the user's own settings may set
any valid value), since raising it spends the user's machine or attention.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import field as dataclass_field
from dataclasses import fields, replace
from functools import cache
from typing import Any, Final, TypeVar

from recall.toml_lines import place

Warn = Callable[[str], None]
Parse = Callable[[Any], Any]
S = TypeVar("S")

_PARSE = "tether.parse"
_ALIASES = "tether.aliases"
_ONLY_OFF = "tether.only_off"
_MERGE = "tether.merge"
_ONLY_LOWER = "tether.only_lower"

Advise = Callable[[str], str]
"""Where the user may raise a limit a repository may not: given the field's name, the words
that end the warning (``set maxPerFile in your editor's settings``)."""


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
    only_lower: bool = False,
) -> Any:
    """Declare a settings field: its default, the parser of its value, any further key names
    (in any spelling). ``only_off``: a flag any source may turn off and none back on. ``merge``:
    a table whose entries are laid over the ones before instead of replacing them all.
    ``only_lower``: a limit a repository's settings may lower but not raise above ``default``
    (see :func:`apply`). A mutable default (a dict) is copied for each settings object."""
    metadata = {
        _PARSE: parse,
        _ALIASES: aliases,
        _ONLY_OFF: only_off,
        _MERGE: merge,
        _ONLY_LOWER: only_lower,
    }
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


def key_names(settings_class: type) -> dict[str, str]:
    """Every key ``settings_class`` accepts, folded, mapped to itself in snake_case (an alias
    as the alias: ``diagnostic_categories``), for suggesting it."""
    return {
        fold_key(name): name
        for item in fields(settings_class)
        if _PARSE in item.metadata
        for name in (item.name, *item.metadata[_ALIASES])
    }


def only_off_fields(settings_class: type) -> frozenset[str]:
    """The fields of ``settings_class`` that, once off, stay off."""
    return frozenset(f.name for f in fields(settings_class) if f.metadata.get(_ONLY_OFF))


def only_lower_fields(settings_class: type) -> dict[str, Any]:
    """The fields of ``settings_class`` a repository may lower but not raise, each mapped to
    its default: the most a repository's settings may give it."""
    return {f.name: f.default for f in fields(settings_class) if f.metadata.get(_ONLY_LOWER)}


def _camel(name: str) -> str:
    """A snake_case field name as an editor's settings spell it: ``maxDocumentChars``."""
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def in_editor_settings(name: str) -> str:
    """Where the language server's limits are raised: the editor's settings, which spell the
    key camelCase."""
    return f"set {_camel(name)} in your editor's settings"


def apply(
    settings: S,
    source: str,
    values: Mapping[str, Any],
    warn: Warn,
    *,
    from_repository: bool = False,
    raise_it: Advise = in_editor_settings,
) -> S:
    """``settings`` with the keys it knows in ``values`` applied; a bad value is reported
    (naming ``source`` and the key) and the value before it kept. One setting given twice in
    ``values`` (two spellings, or a key and its alias) is said, and the outcome is what the
    warning says: the last valid one replaces the earlier one entirely (a merged table is
    not merged with it); when the last is not valid, the earlier one is kept. Keys it does not
    know are left to other readers. An ``only_off`` flag already off, here or earlier in the
    same ``values``, stays off. ``from_repository``: ``values`` are a repository's, so an
    ``only_lower`` limit above its default is said and not taken, like a bad value, the warning
    ending with ``raise_it`` (where the user may set it instead)."""
    settings_class = type(settings)
    known = keys_of(settings_class)
    merged = {f.name for f in fields(settings_class) if f.metadata.get(_MERGE)}
    stays_off = only_off_fields(settings_class)
    ceilings = only_lower_fields(settings_class) if from_repository else {}
    changes: dict[str, Any] = {}
    given: dict[str, str] = {}  # field -> the key whose valid value is in ``changes``
    named: dict[str, str] = {}  # field -> the last key naming it, valid or not
    for raw_key, value in values.items():
        entry = known.get(fold_key(str(raw_key)))
        if entry is None:
            continue
        name, parse = entry
        key = str(raw_key)
        earlier, before = given.get(name), named.get(name)
        named[name] = key
        try:
            parsed = parse(value)
        except ValueError as error:
            kept = f"; {earlier}, which also sets {name}, is kept: remove one" if earlier else ""
            warn(f"{place(source, key)}: ignoring {key} = {value!r}: {error}{kept}")
            continue
        where = place(source, key)
        if name in ceilings and parsed > ceilings[name]:
            warn(
                f"{where}: {key} = {value!r} not taken: a repository's settings may lower it but "
                f"not raise it above its default ({ceilings[name]:,}): raising it costs your "
                f"machine or your attention, which a cloned repository must not decide; to use "
                f"{value!r}, {raise_it(name)}"
            )
            continue
        if name in stays_off and earlier is not None:
            warn(
                f"{where}: {earlier} and {key} both set {name}, which is only ever turned "
                "off here: it is off if either is false; remove the other"
            )
        elif before is not None:
            warn(
                f"{where}: {before} and {key} both set {name}; the last one, {key}, wins: "
                "remove the other"
            )
        given[name] = key
        current = getattr(settings, name)
        if name in merged:  # onto what came before this table, not onto the earlier spelling
            parsed = {**current, **parsed}
        if name in stays_off:
            parsed = parsed and current and changes.get(name, True)
        changes[name] = parsed
    return replace(settings, **changes) if changes else settings  # type: ignore[type-var]


# -- value parsers ---------------------------------------------------------------------------


LARGEST_WHOLE: Final = 2**63 - 1
"""The largest whole number a setting takes: SQLite's largest INTEGER (signed 64 bits), since a
setting may reach the index as a query parameter, and no count or day window comes near it."""


def count(value: Any) -> int:
    """A whole number, 0 or more, at most :data:`LARGEST_WHOLE`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("give a whole number, 0 or more")
    if value > LARGEST_WHOLE:
        raise ValueError(f"give a whole number of at most {LARGEST_WHOLE:,}")
    return value


def positive(value: Any) -> int:
    """A whole number above 0, at most :data:`LARGEST_WHOLE` (anything else below that is
    told "above 0", never "0 or more", which 0 is not)."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError("give a whole number above 0")
    return count(value)


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


# -- keys no reader knows --------------------------------------------------------------------

SUGGEST_CUTOFF: Final = 0.6
"""How alike (difflib's ratio, 0 to 1) a known key must be to an unknown one to be suggested:
difflib's own default, which catches a dropped, doubled or swapped letter and a missing word
(``archive_days`` -> ``archive_window_days``) yet suggests nothing for an unrelated name."""

NOT_A_SETTING: Final = "not a Tether setting (docs/lifecycle.md and docs/editors.md list them)"


def _spelled_like(example: str, snake: str) -> str:
    """``snake`` (a snake_case name) in the spelling of ``example``: kebab, camel or snake."""
    words = snake.split("_")
    if "-" in example:
        return "-".join(words)
    if "_" not in example and any(c.isupper() for c in example):
        return words[0] + "".join(word.capitalize() for word in words[1:])
    return snake


def closest_key(raw_key: str, known: Mapping[str, str]) -> str | None:
    """The key of ``known`` (folded -> snake_case name) most like ``raw_key``, written the way
    ``raw_key`` is; None when none is alike enough (see :data:`SUGGEST_CUTOFF`)."""
    import difflib  # only for a key no reader knows

    match = difflib.get_close_matches(fold_key(raw_key), list(known), n=1, cutoff=SUGGEST_CUTOFF)
    return _spelled_like(raw_key, known[match[0]]) if match else None


def unknown_keys(
    source: str, values: Mapping[Any, Any], known: Mapping[str, str], advice: str = NOT_A_SETTING
) -> list[str]:
    """One warning per key of ``values`` not in ``known`` (folded -> name), naming ``source``
    and the key, with the closest known key when there is one (else ``advice``): the same
    words for a settings file and for an editor's settings."""
    lines: list[str] = []
    for raw_key in values:
        key = str(raw_key)
        if fold_key(key) in known:
            continue
        suggestion = closest_key(key, known)
        said = f"did you mean {suggestion}?" if suggestion else advice
        lines.append(f"{place(source, key)}: unknown key {key!r} ignored; {said}")
    return lines
