"""On which line of a TOML file a key is written, since ``tomllib`` gives no positions.

:func:`key_lines` walks the statements of the tree that the TOML grammar of tree-sitter parses
of a file's text: table headers (``[a.b]``) and ``key = value`` pairs, at the top, in a table
or in an inline table (``a = { b = 1 }`` holds ``a.b``), never inside another value (an
array, a multi-line string). Each key, bare,
quoted or dotted, is decoded by ``tomllib`` itself, so its spelling rules are TOML's, and
recorded under its full path (the table it is in, then its own parts) with its line. A tree
with a syntax error, or a walk that disagrees with what ``tomllib`` read of the same text,
finds nothing, so that a warning names the file alone rather than a wrong line.

:class:`FileTable` is a settings table's name (as a warning names it) that can also say where
one of its keys is: ``path:line`` in the form every other file problem is said in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Final

from recall.containment import read_plain_file

KeyPath = tuple[str, ...]

SETTINGS_MAX_BYTES: Final = 1 << 20
"""The most a settings file is read of (``pyproject.toml`` included): a large project's is a few
tens of kilobytes, and a repository's file is read by every hook and server start."""

_KEYS = frozenset({"bare_key", "quoted_key", "dotted_key"})


@cache
def _parser() -> Any:
    """A tree-sitter parser of TOML, made once, on the first line asked for: the grammar
    loads only when there is a problem to place, never for a command that has none."""
    import tree_sitter_toml
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_toml.language()))


def _path_of(fragment: str) -> KeyPath:
    """The key path of a header or pair decoded by ``tomllib`` (``[a."b"]`` is ``(a, b)``): the
    one path through the nested tables it reads of the fragment."""
    import tomllib

    tree: Any = tomllib.loads(fragment)
    path: list[str] = []
    while isinstance(tree, dict) and len(tree) == 1:
        (key, tree), *_ = tree.items()
        path.append(key)
    return tuple(path)


def _key(node: Any) -> str:
    """The source text of the key of a pair or table header ``node``."""
    key = next(child for child in node.named_children if child.type in _KEYS)
    return key.text.decode("utf-8")


def _walk(text: str) -> dict[KeyPath, int]:
    """Every key path of ``text`` mapped to the line it is first written on; empty when the
    grammar met a syntax error it had to recover from."""
    root = _parser().parse(text.encode("utf-8")).root_node
    if root.has_error:
        return {}
    lines: dict[KeyPath, int] = {}

    def record(path: KeyPath, node: Any) -> None:
        for end in range(1, len(path) + 1):
            lines.setdefault(path[:end], node.start_point.row + 1)

    def record_pair(table: KeyPath, pair: Any) -> None:
        """Record ``pair`` of ``table``, and the pairs of an inline table it holds, under its
        path (``tether = { distill_max = 10 }`` holds ``tether.distill_max``), each on its line."""
        path = table + _path_of(f"{_key(pair)} = 0")
        record(path, pair)
        for value in pair.named_children:
            if value.type == "inline_table":
                for inner in value.named_children:
                    if inner.type == "pair":
                        record_pair(path, inner)

    for statement in root.named_children:
        if statement.type == "pair":
            record_pair((), statement)
        elif statement.type in ("table", "table_array_element"):
            table = _path_of(f"[{_key(statement)}]")
            record(table, statement)
            if statement.type == "table":  # a table of an array of tables has no settings
                for pair in statement.named_children:
                    if pair.type == "pair":
                        record_pair(table, pair)
    return lines


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
    1-based line; empty when the walk cannot be trusted (a syntax error, or a path
    ``tomllib`` did not read)."""
    # A key the grammar takes and tomllib does not (its errors are ValueErrors), a statement
    # without a key, or no grammar wheel installed: no line rather than a guess.
    try:
        lines = _walk(text)
    except (ValueError, StopIteration, ImportError):
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
    fault when there is one. Only a plain file of at most :data:`SETTINGS_MAX_BYTES` is read (see
    :func:`recall.containment.read_plain_file`)."""
    try:
        data = read_plain_file(path, SETTINGS_MAX_BYTES)
    except FileNotFoundError:
        return {}, ""
    except OSError as error:
        why = error.strerror or str(error)
        warn(f"{path}: not read ({why}); none of its settings apply until it can be read")
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
