"""Values of a memory file written unquoted that YAML reads as something other than their text
(``1.10`` the number 1.1, ``on`` true, ``0x10`` 16, ``0777`` 511): the file says one thing, and
Tether, an export and an import take another. Found in the file's text, for each top-level key
(but those Tether reads as a boolean or a time) and each key of an entry of ``anchors``, with
the line it is on; said by ``tether export`` (with what it carries), ``doctor``, ``show`` and
the language server on a memory file, each saying how to quote it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall import frontmatter
from recall.errors import MalformedMemory
from recall.json_values import json_value
from recall.line_ends import lone_cr_as_lf
from recall.memfiles import OversizedFile
from recall.records import KNOWN_KEYS, memory_from_parsed

if TYPE_CHECKING:
    from recall.store import MemoryStore

NOT_TEXT_KEYS = frozenset({"pinned", "guard", "created"})
"""The top-level keys Tether reads as a boolean (``pinned``, ``guard``) or as a time
(``created``): YAML's reading of an unquoted ``on`` or ``2026-11-30`` is what they are meant to
take, so it is never said to be other than their text."""

_LISTS = ("files", "anchors")
"""The top-level keys Tether reads as lists: a single value written there that YAML retypes
fails the file (said as its problem), and the entries of ``anchors`` are looked into."""

_PLAIN_PAIR = re.compile(
    r"^([ \t]*(?:-[ \t]+)?)([^\s#'\"][^:#\n]*?)[ \t]*:[ \t]+"  # the key, in a list item too
    r"([^\s'\"|>&*!%@`#][^#\n]*?)[ \t]*(?:#.*)?$",  # a value that may be plain, its comment
    re.MULTILINE,
)
"""A ``key: value`` line (an item of a block list too) whose value may be an unquoted scalar:
the cheap look of :func:`_may_retype`, which may take in more than YAML does, never less."""

_STR_TAG = "tag:yaml.org,2002:str"


@dataclass(frozen=True)
class ReadAs:
    """A value written unquoted on ``line`` as ``written`` and read by YAML as ``read``."""

    what: str
    """The key, as said: ``front-matter key 'author'``, ``key 'lines' of anchor a.py::f``."""
    key: str
    line: int
    written: str
    read: Any
    """What YAML read, as JSON holds it."""
    kept: Any
    """What Tether keeps of it (the text it makes of a key it reads as text), which an export
    carries: the value read, for a key of the person's own."""
    read_by_tether: bool
    """Whether Tether reads the key (``author``, an anchor's ``body``): its value then is not
    the one written, where a key of the person's own is only carried by an export."""

    def export_note(self, path: object) -> str:
        """What ``tether export`` says of it: the file and line, both values, what the record
        carries and how to quote it."""
        return (
            f"{self.what} is written {self.written} on {path}:{self.line}, which YAML reads as "
            f"{_shown(self.read)}: exported as {_shown(self.kept)}, the value an import writes "
            f"back; {self._quote()}"
        )

    def note(self) -> str:
        """What it is, without its place (the caller gives it): both values, what follows
        from it and how to quote it."""
        said = f"{self.what} is written {self.written}, which YAML reads as {_shown(self.read)}"
        if self.read_by_tether:
            return f"{said}, so Tether takes it as {_shown(self.kept)}; {self._quote()}"
        return f"{said} (an export carries that, and an import writes it back); {self._quote()}"

    def to_dict(self) -> dict[str, Any]:
        """The finding for ``--json``: the key, its line, the value as written and as read,
        and whether Tether reads the key."""
        return {
            "key": self.key,
            "line": self.line,
            "written": self.written,
            "read": self.read,
            "kept": self.kept,
            "read_by_tether": self.read_by_tether,
        }

    def _quote(self) -> str:
        return f'quote it there ({self.key}: "{self.written}") to keep it as text'


def retyped(text: str) -> list[ReadAs]:
    """Each value of the memory file ``text`` written unquoted that YAML reads as other than
    its text, in the order of the file: its top-level keys, then the keys of the entries of
    ``anchors``. None for a file that does not load (its own problem says why)."""
    front = _front(text)
    if front is None or not _may_retype(front):
        return []
    try:
        parsed = frontmatter.parse(text, "memory")
        held = memory_from_parsed(parsed, "memory", fallback_created="").to_dict()
    except MalformedMemory:
        return []
    lines = lone_cr_as_lf(text.removeprefix("\ufeff")).split("\n")  # as key_lines counts them
    found: list[ReadAs] = []
    for key, value in parsed.fields.items():
        line = parsed.key_lines.get(key)
        skipped = line is None or key in NOT_TEXT_KEYS or key in _LISTS
        plain = None if skipped else _plain_value(lines[line - 1])
        if plain is None:
            continue
        what = f"front-matter key {key!r}"
        if key in KNOWN_KEYS:  # read as text: the text Tether made of what YAML read
            kept = None if value is None or isinstance(value, str) else held[key]
            if kept is not None and kept != plain:
                found.append(ReadAs(what, key, line, plain, json_value(value)[0], kept, True))
        else:
            found += _said(what, key, line, plain, value)
    if any(isinstance(entry, dict) for entry in _entries(parsed.fields.get("anchors"))):
        found += _anchor_values(text, _entries(parsed.fields["anchors"]))
    return found


def store_retyped(store: MemoryStore) -> Iterator[tuple[str, Path, ReadAs]]:
    """Each value YAML reads as other than its text in the memory files of ``store``, with the
    memory's id and file, in file-name order. A file that cannot be read or loaded is left to
    the store's own problems."""
    rows = store.conn.execute("SELECT id, name FROM memories ORDER BY name").fetchall()
    for memory_id, name in rows:
        try:
            text = store.folder.read_bytes(name).decode("utf-8")
        except (OSError, OversizedFile, UnicodeDecodeError):
            continue
        for found in retyped(text):
            yield memory_id, store.folder.path / name, found


def _anchor_values(text: str, entries: list[Any]) -> list[ReadAs]:
    """The values of the entries of ``anchors`` (``entries``, as YAML read them) written
    unquoted as text YAML reads as something else; a body hash is kept as the text made of
    what YAML read (as the anchor keeps it)."""
    from recall.anchors.symbols import BODY_KEY, SYMBOL_KEY
    from recall.frontmatter_marks import plain_entry_values

    found: list[ReadAs] = []
    for entry, plain in zip(entries, plain_entry_values(text, "anchors"), strict=False):
        if not isinstance(entry, dict):
            continue
        for key, (line, written) in plain.items():
            value = entry.get(key)
            what = f"key {key!r} of anchor {entry.get(SYMBOL_KEY)}"
            if key != BODY_KEY:
                found += _said(what, key, line, written, value)
            elif value is not None:  # ``body: ~`` is no body, as meant
                found += _said(what, key, line, written, value, str(value), read_by_tether=True)
    return found


_AS_READ = object()
"""What :func:`_said` takes for the value kept when it is the value read."""


def _said(
    what: str,
    key: str,
    line: int,
    plain: str,
    value: Any,
    kept: Any = _AS_READ,
    *,
    read_by_tether: bool = False,
) -> list[ReadAs]:
    """The finding for ``key`` (``what`` names it) on ``line`` written unquoted as ``plain`` and
    read by YAML as ``value``, ``kept`` so (default: that value); none when the value is that
    text (a string, or a number written as Tether writes it), or one JSON cannot hold (an
    export says so of its own, with what it carries instead)."""
    if isinstance(value, str) or not plain or plain == frontmatter.scalar(value):
        return []
    as_json, kind = json_value(value)
    if kind is not None:
        return []
    kept = as_json if kept is _AS_READ else kept
    return [ReadAs(what, key, line, plain, as_json, kept, read_by_tether)]


def _entries(value: Any) -> list[Any]:
    """The entries of an ``anchors`` value as YAML read it (one given alone is one)."""
    return value if isinstance(value, list) else [value]


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _front(text: str) -> str | None:
    """The front matter of ``text`` as its lines read (a lone CR a line end), or None when
    it has none."""
    text = lone_cr_as_lf(text.removeprefix("\ufeff"))
    if not text.startswith(frontmatter.FENCE):
        return None
    end = text.find(f"\n{frontmatter.FENCE}", len(frontmatter.FENCE))
    return text[len(frontmatter.FENCE) : end if end >= 0 else len(text)]


def _may_retype(front: str) -> bool:
    """Whether a value of the front matter ``front`` may be one YAML reads as other than its
    text: written unquoted as YAML's implicit types are (a number, a boolean, null, a date),
    or inside a flow list or mapping. A cheap look, so that only such a file is parsed (a
    store may hold tens of thousands, and the files Tether writes quote every such value)."""
    import yaml  # on first use, as recall.frontmatter does

    resolvers = yaml.SafeLoader.yaml_implicit_resolvers
    for indent, key, value in _PLAIN_PAIR.findall(front):
        if not indent and key in NOT_TEXT_KEYS:
            continue
        if value[0] in "[{":
            if value not in ("[]", "{}"):
                return True
            continue
        for tag, pattern in resolvers.get(value[0], ()):
            if tag != _STR_TAG and pattern.match(value):
                return True
    return False


def _plain_value(line: str) -> str | None:
    """The unquoted scalar value of a one-line ``key: value`` as written, or None when the
    value is quoted, spans lines, is a list or mapping, or the line does not scan alone."""
    import yaml  # on first use, as recall.frontmatter does

    try:
        tokens = list(yaml.scan(line.rstrip("\r"), Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return None
    kinds = (yaml.StreamStartToken, yaml.StreamEndToken, yaml.BlockEndToken)
    tokens = [t for t in tokens if not isinstance(t, kinds)]
    shape = [type(t) for t in tokens]
    expected = [
        yaml.BlockMappingStartToken,
        yaml.KeyToken,
        yaml.ScalarToken,
        yaml.ValueToken,
        yaml.ScalarToken,
    ]
    if shape != expected or not tokens[-1].plain:
        return None
    return str(tokens[-1].value)
