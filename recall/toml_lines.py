"""On which line of a TOML file a key is written, since ``tomllib`` gives no positions.

:func:`key_lines` scans a file's text statement by statement: a table header (``[a.b]``) or a
``key = value`` outside any value (not in a multi-line string, array or inline table). Each
key, bare, quoted or dotted, is decoded by ``tomllib`` itself, so its spelling rules are TOML's,
and recorded under its full path (the table it is in, then its own parts) with its line. A
scan that disagrees with what ``tomllib`` read of the same text finds nothing, so that a
warning names the file alone rather than a wrong line.

:class:`FileTable` is a settings table's name (as a warning names it) that can also say where
one of its keys is: ``path:line`` in the form every other file problem is said in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

KeyPath = tuple[str, ...]

_CLOSERS = {"[": "]", "{": "}"}


def _decoded(fragment: str) -> Any:
    """What ``tomllib`` reads of a small TOML fragment (a header, or ``key = 0``)."""
    import tomllib

    return tomllib.loads(fragment)


def _path_of(tree: Any) -> KeyPath:
    """The one path through a fragment's nested tables: ``{"a": {"b": 0}}`` is ``(a, b)``."""
    path: list[str] = []
    while isinstance(tree, dict) and len(tree) == 1:
        (key, tree), *_ = tree.items()
        path.append(key)
    return tuple(path)


class _Scan:
    """One pass over a TOML text, recording the first line of each key path."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.line = 1
        self.table: KeyPath | None = ()  # None under an array of tables: no settings there
        self.lines: dict[KeyPath, int] = {}

    def _take(self, stop: str) -> str:
        """The text up to the first ``stop`` outside a quoted string (``stop`` not taken)."""
        start, quote = self.at, ""
        while self.at < len(self.text):
            char = self.text[self.at]
            if quote:
                if char == "\\" and quote == '"':
                    self.at += 1
                elif char == quote:
                    quote = ""
            elif char in "\"'":
                quote = char
            elif char in stop or char == "\n":
                break
            self.at += 1
        if self.at >= len(self.text) or self.text[self.at] not in stop:
            raise ValueError("not a statement")
        return self.text[start : self.at]

    def _skip_value(self) -> None:
        """Past a value (strings, multi-line too, arrays, inline tables) to its line's end."""
        depth = 0
        while self.at < len(self.text):
            rest = self.text[self.at :]
            char = rest[0]
            if rest[:3] in ('"""', "'''"):
                end = self.text.find(rest[:3], self.at + 3)
                while rest[0] == '"' and end > 0 and self._escaped(end):
                    end = self.text.find('"""', end + 1)
                if end < 0:
                    raise ValueError("unclosed string")
                end += 3
                while self.text[end : end + 1] == rest[0]:  # up to two quotes end the string
                    end += 1
                self.line += self.text.count("\n", self.at, end)
                self.at = end
                continue
            if char in "\"'":
                self._skip_string(char)
            elif char == "#":
                newline = self.text.find("\n", self.at)
                self.at = len(self.text) if newline < 0 else newline
                continue
            elif char in _CLOSERS:
                depth += 1
            elif char in "]}":
                depth -= 1
            elif char == "\n":
                if depth == 0:
                    return
                self.line += 1
            self.at += 1

    def _skip_string(self, quote: str) -> None:
        """To the closing quote of a one-line string opening at the current character."""
        self.at += 1
        while self.at < len(self.text) and self.text[self.at] not in (quote, "\n"):
            self.at += 2 if quote == '"' and self.text[self.at] == "\\" else 1
        if self.text[self.at : self.at + 1] != quote:
            raise ValueError("unclosed string")

    def _escaped(self, index: int) -> bool:
        """Whether the character at ``index`` follows an odd run of backslashes."""
        run = 0
        while index - run - 1 >= 0 and self.text[index - run - 1] == "\\":
            run += 1
        return run % 2 == 1

    def _record(self, path: KeyPath) -> None:
        for end in range(1, len(path) + 1):
            self.lines.setdefault(path[:end], self.line)

    def run(self) -> dict[KeyPath, int]:
        """Every key path of the text mapped to the line it is first written on."""
        while self.at < len(self.text):
            char = self.text[self.at]
            if char == "\n":
                self.line += 1
                self.at += 1
            elif char in " \t\r":
                self.at += 1
            elif char == "#":
                newline = self.text.find("\n", self.at)
                self.at = len(self.text) if newline < 0 else newline
            elif char == "[":
                array = self.text.startswith("[[", self.at)
                self.at += 2 if array else 1
                header = self._take("]")
                self.at += 2 if array else 1
                path = _path_of(_decoded(f"[{header}]"))
                self._record(path)
                self.table = None if array else path
                self._skip_value()  # a comment after the header
            else:
                key = self._take("=")
                path = _path_of(_decoded(f"{key} = 0"))
                if self.table is not None:
                    self._record(self.table + path)
                self.at += 1
                self._skip_value()
        return self.lines


def _present(document: Any, path: KeyPath) -> bool:
    """Whether ``path`` leads through ``document``'s tables (and arrays of tables, through any
    of their tables) to a value."""
    if not path:
        return True
    if isinstance(document, list):
        return any(_present(item, path) for item in document)
    return (
        isinstance(document, dict) and path[0] in document and _present(document[path[0]], path[1:])
    )


def key_lines(text: str, document: Mapping[str, Any]) -> dict[KeyPath, int]:
    """Each key path written in ``text`` (a TOML file read into ``document``) mapped to its
    1-based line; empty when the scan cannot be trusted (it met a path ``tomllib`` did not)."""
    try:
        lines = _Scan(text).run()
    except (ValueError, RecursionError):  # tomllib's errors are ValueErrors too
        return {}
    if not all(_present(document, path) for path in lines):
        return {}
    return lines


def error_line(message: str, text: str) -> int | None:
    """The line ``tomllib`` names in a syntax error's message about ``text`` (``... (at line 3,
    column 1)``), or its last line for an error ``at end of document``; None for another."""
    import re

    found = re.search(r"\(at line (\d+), column \d+\)$", message)
    if found:
        return int(found.group(1))
    if message.endswith("(at end of document)") and text:
        return text.count("\n", 0, len(text.rstrip("\n"))) + 1
    return None


def read_toml(path: Path, warn: Callable[[str], None]) -> tuple[dict[str, Any], str]:
    """The table of a settings file and its text, read as UTF-8 (a byte-order mark at its
    start, which some Windows editors write, skipped as the memory files' and the import's
    are); empty when there is none, or when it cannot be read, which is said with the line at
    fault when there is one."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}, ""
    except OSError as error:
        warn(f"{path}: not read ({error})")
        return {}, ""
    import tomllib  # only once there is a file to read: most repositories have none

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        warn(
            f"{path}:{line}: not read (not UTF-8 text: {error.reason} at byte {error.start}); "
            "save it as UTF-8"
        )
        return {}, ""
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as error:
        found = error_line(str(error), text)
        where = f"{path}:{found}" if found is not None else str(path)
        warn(
            f"{where}: not read ({error}); fix the TOML there: until then none of its "
            "settings apply"
        )
    except RecursionError:
        warn(f"{path}: not read (nested deeper than a settings file can be read)")
    return {}, ""


class FileTable(str):
    """A settings table's name as warnings give it (``pyproject.toml [tool.tether]``), which
    can also say on which line of its file one of its keys is (:meth:`place`)."""

    path: Path
    table: KeyPath
    text: str
    document: Mapping[str, Any]

    def __new__(
        cls, name: str, path: Path, table: KeyPath, text: str, document: Mapping[str, Any]
    ) -> FileTable:
        """``name`` as said when no line is, for the table at ``table`` of ``path``."""
        made = super().__new__(cls, name)
        made.path, made.table, made.text, made.document = path, table, text, document
        return made

    @cached_property
    def _lines(self) -> dict[KeyPath, int]:
        return key_lines(self.text, self.document)

    def line_of(self, key: str) -> int | None:
        """The line ``key`` of this table is written on; None when it cannot be found."""
        return self._lines.get((*self.table, key))

    def place(self, key: str) -> str:
        """``path:line`` of ``key``, or this name alone when its line cannot be found."""
        line = self.line_of(key)
        return f"{self.path}:{line}" if line is not None else str(self)


def place(source: str, key: str) -> str:
    """Where ``key`` of ``source`` is: ``path:line`` for a file's table, else ``source``."""
    return source.place(key) if isinstance(source, FileTable) else source
