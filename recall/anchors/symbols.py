"""Symbol anchors: a memory bound to definitions (``path::name``), as front matter holds them.

The ``anchors`` key is a list. Each item is either the plain text ``path::name`` (how a person
writes one by hand) or a mapping with ``symbol: path::name`` and ``body:``, the hash of the
definition's text when the memory was written or last confirmed. Keys of a mapping that Tether
does not know are kept and written back. The older single ``anchor`` key (a symbol name or a
line range inside the memory's file) is a separate field and is left as it is.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Final

from recall.errors import BadInput

SEPARATOR: Final = "::"
SYMBOL_KEY: Final = "symbol"
BODY_KEY: Final = "body"

# A qualified name's parts are joined with a dot whatever the language wrote (``Store.save``
# for a Python method, ``Foo.bar`` for C++'s ``Foo::bar``), so one anchor finds either.
NAME_SEPARATOR: Final = "."


class _NameParts:
    """The patterns that take a qualified name apart, compiled with the first name taken apart:
    a recall reads anchors from the index as they were stored and never needs them."""

    __slots__ = ("hash_qualifier", "operator", "plain", "qualifier", "space_between_words")

    def __init__(self) -> None:
        self.qualifier = re.compile(r"::|\.")
        # ``Foo#bar`` (a method written the Ruby or Javadoc way) qualifies; a part that starts
        # with ``#`` is a JavaScript private name and keeps it (``Foo.#priv``).
        self.hash_qualifier = re.compile(r"(?<=[^#])#")
        # A C++ operator's name runs to the end (``Foo.operator()``, ``operator<<``): it is kept
        # whole, spaces dropped except between two words (``operator new``).
        self.operator = re.compile(r"(?:^|(?<=::)|(?<=[.#]))operator(?![\w$])")
        self.space_between_words = re.compile(r"(?<=\w)\s+(?=\w)")
        # A name with no qualifier, call parentheses, space or operator to take apart.
        self.plain = re.compile(r"[A-Za-z_$][\w$]*")


@functools.cache
def _name_parts() -> _NameParts:
    return _NameParts()


def _operator_text(text: str) -> str:
    words = _name_parts().space_between_words.sub("\x00", text)
    return "".join(words.split()).replace("\x00", " ")


def normalize_name(name: str) -> str:
    """A symbol name as the symbol index keys it: qualifiers joined by dots, no call
    parentheses; a leading ``#`` (JavaScript private) and a C++ ``operator…`` name are kept.
    The index applies it to the names it stores, so both sides agree."""
    patterns = _name_parts()
    if patterns.plain.fullmatch(name) and name != "operator":  # most names: nothing to do
        return name
    text = name.strip()
    operator = ""
    found = patterns.operator.search(text)
    if found is not None:
        text, operator = text[: found.start()], _operator_text(text[found.start() :])
        if operator.endswith("()") and operator != "operator()":
            operator = operator[:-2]
    elif text.endswith("()"):
        text = text[:-2]
    parts: list[str] = []
    for piece in patterns.qualifier.split(text):
        parts.extend(part.strip() for part in patterns.hash_qualifier.split(piece.strip()))
    if operator:
        parts.append(operator)
    return NAME_SEPARATOR.join(part for part in parts if part)


def leaf_of(name: str) -> str:
    """The last part of a normalized name (``save`` for ``Store.save``)."""
    return name.rpartition(NAME_SEPARATOR)[2]


@dataclass(frozen=True)
class SymbolAnchor:
    """One anchor: the file and the (qualified) name of a definition in it."""

    path: str
    name: str
    body: str | None = None
    """Hash of the definition's text when the anchor was written or confirmed (None: unknown)."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def text(self) -> str:
        """The anchor as ``path::name``."""
        return f"{self.path}{SEPARATOR}{self.name}"

    def to_field(self) -> str | dict[str, Any]:
        """The front-matter item: plain text unless a body hash or other keys are kept."""
        if self.body is None and not self.extra:
            return self.text
        item: dict[str, Any] = {SYMBOL_KEY: self.text}
        if self.body is not None:
            item[BODY_KEY] = self.body
        item.update(self.extra)
        return item

    def to_dict(self) -> dict[str, Any]:
        """JSON form: path, name, the recorded body hash and any keys kept from a person, a
        value JSON cannot hold (a YAML date, binary data, a NaN) as :func:`extra_as_json`
        gives it."""
        data = {"symbol": self.text, "path": self.path, "name": self.name, "body": self.body}
        if self.extra:
            data["extra"] = self.extra_as_json()[0]
        return data

    def extra_as_json(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The kept keys as JSON holds them, and for each key whose value JSON cannot hold as
        it is, what it held (see :func:`recall.json_values.json_value`)."""
        from recall.json_values import json_value

        values: dict[str, Any] = {}
        held: dict[str, str] = {}
        for key, value in self.extra.items():
            values[key], kind = json_value(value)
            if kind is not None:
                held[key] = kind
        return values, held


def looks_like_symbol_anchor(text: str) -> bool:
    """Tell whether ``text`` is ``path::name`` with a file path before the ``::`` (a C++
    ``Class::method`` names a symbol inside the memory's file: no folder, no suffix)."""
    path, sep, name = text.strip().partition(SEPARATOR)
    if not sep or not path or not name.strip():
        return False
    return "/" in path or "." in path.rpartition("/")[2]


def parse_anchor(text: str, *, label: str = "anchor", given: bool = False) -> tuple[str, str]:
    """Split ``path::name`` into its path and name, the path normalised the way the project
    keys files (``./src//a.py`` is ``src/a.py``); raises :class:`BadInput` naming ``label``
    for a path that leaves the repository. An anchor a person ``given`` now (not one read
    back from a memory, which stays readable) keeps its path as typed, for the caller to read
    as it reads the files given beside it (``--anchor ../src/a.py::f`` from a subfolder, an
    absolute path or a ``file://`` URI inside the repository), and is refused for a path
    ending in ``/`` (a folder)."""
    stripped = text.strip()
    path, sep, name = stripped.partition(SEPARATOR)
    path, name = path.strip(), name.strip()
    if not sep or not path or not name:
        raise BadInput(
            f"{label} {text!r} is not a symbol anchor; write it as path::name "
            "(for example src/store.py::Store.save)"
        )
    if "\n" in stripped or "\r" in stripped:
        raise BadInput(f"{label} {text!r} must be on one line")
    if given and path.endswith(("/", "\\")):
        raise BadInput(
            f"{label} {text!r}: the path {path!r} ends in {path[-1]!r}, which names a folder; "
            "an anchor names a definition in a file: give it as "
            f"{path.rstrip('/').rstrip(chr(92))}{SEPARATOR}{name}"
        )
    if given:  # read by the caller as its files are (from where it runs, absolute, a URI)
        return path, name
    if path.startswith("/") or path.startswith("\\"):
        raise BadInput(f"{label} {text!r}: give the path relative to the repository root")
    from recall.paths import normalize_loose

    try:
        clean = normalize_loose(path, label="path")
    except BadInput:
        raise BadInput(
            f"{label} {text!r}: the path {path!r} leaves the repository or names no file; "
            "give the path relative to the repository root"
        ) from None
    return clean, name


def anchors_from_field(value: Any) -> tuple[SymbolAnchor, ...]:
    """The anchors of an ``anchors`` front-matter value; raises :class:`BadInput` for a shape
    it cannot read (the caller names the file and line)."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str | dict) else value
    if not isinstance(items, list):
        raise BadInput("anchors must be a list of path::name symbols")
    found: list[SymbolAnchor] = []
    for item in items:
        if isinstance(item, str):
            path, name = parse_anchor(item)
            found.append(SymbolAnchor(path, name))
            continue
        if not isinstance(item, dict) or not isinstance(item.get(SYMBOL_KEY), str):
            raise BadInput(
                "each item of anchors is path::name, or a mapping with symbol: path::name"
            )
        path, name = parse_anchor(item[SYMBOL_KEY])
        body = item.get(BODY_KEY)
        extra = {k: v for k, v in item.items() if k not in (SYMBOL_KEY, BODY_KEY)}
        found.append(SymbolAnchor(path, name, None if body in (None, "") else str(body), extra))
    return tuple(found)


RECORD_ANCHOR_KEYS: Final = frozenset({SYMBOL_KEY, "path", "name", BODY_KEY, "extra"})
"""The keys of an anchor object :meth:`SymbolAnchor.to_dict` exports (``path`` and ``name``
are its symbol's parts, said again). Any other key of such an object on an import line is a
key of the anchor's own, kept as one written beside it in front matter is."""


def anchors_from_records(value: Any) -> tuple[SymbolAnchor, ...]:
    """The anchors of an imported record: ``path::name`` texts, or the objects
    :meth:`SymbolAnchor.to_dict` exports, each with its ``extra`` keys and any key of its own
    beside them kept; raises :class:`BadInput` for another shape (an ``extra`` that is no
    mapping), or for a key given both beside ``extra`` and in it with two values (which one is
    meant cannot be told)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise BadInput("'anchors' must be a list of path::name symbols")
    items: list[Any] = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get(SYMBOL_KEY), str):
            extra = {} if item.get("extra") is None else item["extra"]
            if not isinstance(extra, dict):
                raise BadInput(
                    f"'extra' of anchor {item[SYMBOL_KEY]!r} must be a mapping of the anchor's "
                    "own keys (key: value)"
                )
            own = {k: v for k, v in item.items() if k not in RECORD_ANCHOR_KEYS}
            for key in own.keys() & extra.keys():
                if own[key] != extra[key] or type(own[key]) is not type(extra[key]):
                    raise BadInput(
                        f"anchor {item[SYMBOL_KEY]!r} gives {key!r} twice, beside 'extra' and "
                        "in it, with two values; keep the one you mean"
                    )
            kept = {**own, **extra}
            items.append({**kept, SYMBOL_KEY: item[SYMBOL_KEY], BODY_KEY: item.get(BODY_KEY)})
        else:
            items.append(item)
    return anchors_from_field(items)


def anchors_to_field(anchors: tuple[SymbolAnchor, ...]) -> list[Any]:
    """The ``anchors`` front-matter value of ``anchors``."""
    return [anchor.to_field() for anchor in anchors]


def anchors_column(anchors: tuple[SymbolAnchor, ...]) -> str | None:
    """The anchors as the index stores them, None for none: JSON, or YAML (a block list) when
    a key kept from a person holds a value JSON cannot hold as it is (an unquoted date, binary
    data, a NaN), so that each reads back as the file has it and a rewrite of the anchors
    (``confirm``, a moved symbol) writes it back as it was written."""
    if not anchors:
        return None
    import json

    items = anchors_to_field(anchors)
    if all(not anchor.extra or not anchor.extra_as_json()[1] for anchor in anchors):
        return json.dumps(items)
    import yaml  # on first use: only anchors holding such a value need it

    try:
        return str(yaml.safe_dump(items, allow_unicode=True, sort_keys=False))
    except yaml.YAMLError:  # a value the safe dumper cannot write (ordered pairs): as JSON
        return json.dumps([_json_item(item) for item in items])


def _json_item(item: str | dict[str, Any]) -> Any:
    from recall.json_values import json_value

    return json_value(item)[0]


def anchors_from_column(value: str | None) -> tuple[SymbolAnchor, ...]:
    """The anchors the index stored with :func:`anchors_column`."""
    if not value:
        return ()
    if value.startswith("["):
        import json

        return anchors_from_field(json.loads(value))
    import yaml

    from recall.yaml_loader import unique_keys_loader

    return anchors_from_field(yaml.load(value, Loader=unique_keys_loader()))


def split_anchor_options(values: list[str]) -> tuple[str | None, list[tuple[str, str]]]:
    """Sort the ``--anchor`` values: the one legacy anchor (a symbol or line range inside the
    file) and the symbol anchors ``path::name``. Raises :class:`BadInput` for two legacy ones."""
    legacy: list[str] = []
    symbols: list[tuple[str, str]] = []
    for value in values:
        before, sep, after = value.strip().partition(SEPARATOR)
        if looks_like_symbol_anchor(value) or (sep and not (before.strip() and after.strip())):
            symbols.append(parse_anchor(value, label="--anchor", given=True))  # or empty half
        else:
            legacy.append(value)
    if len(legacy) > 1:
        raise BadInput(
            "only one --anchor may name a symbol or line range inside the file "
            f"({', '.join(map(repr, legacy))}); give the others as path::name"
        )
    return (legacy[0] if legacy else None), symbols
