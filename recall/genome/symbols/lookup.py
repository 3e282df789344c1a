"""Questions asked of the stored symbol index: what a file defines, where a name is defined.

Indexed look-ups only: nothing here parses or runs git.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from recall.genome.symbols.model import SEPARATOR, normalize_name, same_code


@dataclass(frozen=True)
class Located:
    """One definition found in the index: where it is and the hash of its body."""

    path: str
    name: str
    kind: str
    first_line: int
    last_line: int
    body: str
    formers: str = ""
    """The hashes of the earlier forms (see :func:`recall.genome.symbols.model.same_code`)."""

    def same_code(self, recorded: str | None) -> bool:
        """Whether the hash ``recorded`` in an anchor is this definition's (None: unknown)."""
        return recorded is not None and same_code(recorded, self.body, self.formers)


_SELECT = (
    "SELECT f.path, s.name, s.kind, s.first_line, s.last_line, s.body, s.formers "
    "FROM genome_symbols s JOIN genome_symbol_files f ON f.key = s.key "
)


def _rows(conn: sqlite3.Connection, where: str, args: tuple[object, ...]) -> list[Located]:
    cur = conn.cursor()
    cur.row_factory = None
    try:
        rows = cur.execute(_SELECT + where + " ORDER BY f.path, s.first_line", args).fetchall()
    except sqlite3.OperationalError:  # no symbol index yet
        return []
    return [Located(*row) for row in rows]


def indexed(conn: sqlite3.Connection, path: str) -> bool:
    """Tell whether the symbol index read ``path`` (it exists and is a source file)."""
    try:
        row = conn.execute("SELECT 1 FROM genome_symbol_files WHERE path = ?", (path,)).fetchone()
    except sqlite3.OperationalError:
        return False
    return row is not None


def defined_in(conn: sqlite3.Connection, path: str) -> list[Located]:
    """Every definition the index holds for ``path``, in source order."""
    return _rows(conn, "WHERE f.path = ?", (path,))


def _matches(found: list[Located], name: str) -> list[Located]:
    """The definitions named ``name``: exactly, else by the tail of their qualified name
    (``save`` finds ``Store.save``) when the tail matches one definition per file."""
    exact = [hit for hit in found if hit.name == name]
    if exact:
        return exact
    suffix = SEPARATOR + name
    tails = [hit for hit in found if hit.name.endswith(suffix)]
    per_file: dict[str, list[Located]] = {}
    for hit in tails:
        per_file.setdefault(hit.path, []).append(hit)
    return [hits[0] for hits in per_file.values() if len(hits) == 1]


def among(found: list[Located], name: str) -> list[Located]:
    """The definitions of ``found`` that ``name`` stands for, as :func:`find_anywhere` picks
    them (exactly named, else by the tail of their qualified name)."""
    return _matches(found, normalize_name(name))


def find_in(conn: sqlite3.Connection, path: str, name: str) -> Located | None:
    """The definition of ``name`` in ``path`` (the first, when a file defines it twice)."""
    wanted = normalize_name(name)
    leaf = wanted.rpartition(SEPARATOR)[2]
    hits = _matches(_rows(conn, "WHERE f.path = ? AND s.leaf = ?", (path, leaf)), wanted)
    return hits[0] if hits else None


def find_anywhere(conn: sqlite3.Connection, name: str) -> list[Located]:
    """Every file's definition of ``name``, by path."""
    wanted = normalize_name(name)
    leaf = wanted.rpartition(SEPARATOR)[2]
    hits = _matches(_rows(conn, "WHERE s.leaf = ?", (leaf,)), wanted)
    seen: set[str] = set()
    unique: list[Located] = []
    for hit in hits:
        if hit.path not in seen:
            seen.add(hit.path)
            unique.append(hit)
    return unique


def leaves_in(conn: sqlite3.Connection, path: str) -> list[str]:
    """The last part of every name ``path`` defines (what a moved anchor is looked up by)."""
    try:
        rows = conn.execute(
            "SELECT DISTINCT s.leaf FROM genome_symbols s JOIN genome_symbol_files f "
            "ON f.key = s.key WHERE f.path = ?",
            (path,),
        ).fetchall()
    except sqlite3.OperationalError:
        return []
    return [row[0] for row in rows]


def parser_of(conn: sqlite3.Connection, path: str) -> str | None:
    """How the index read ``path`` (``tree-sitter``, ``regex``, ``skipped: …``); None when it
    holds no such file (gone, or never a source file)."""
    try:
        row = conn.execute(
            "SELECT parser FROM genome_symbol_files WHERE path = ?", (path,)
        ).fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else str(row[0] or "")


def keys_of(conn: sqlite3.Connection, paths: Iterable[str]) -> dict[str, str]:
    """The content key the index read each of ``paths`` under (see
    :func:`recall.genome.symbols.index.symbol_key`); a path it holds no such file for is left
    out."""
    try:
        rows = conn.execute(
            "SELECT path, key FROM genome_symbol_files "
            "WHERE path IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(set(paths))),),
        ).fetchall()
    except sqlite3.OperationalError:
        return {}
    return {str(path): str(key) for path, key in rows}


def named_in(conn: sqlite3.Connection, path: str, leaf: str) -> list[Located]:
    """The definitions in ``path`` whose last name part is ``leaf``, in source order."""
    return _rows(conn, "WHERE f.path = ? AND s.leaf = ?", (path, leaf))


def leaves_of(conn: sqlite3.Connection, paths: Iterable[str]) -> dict[str, set[str]]:
    """:func:`leaves_in` of each of ``paths`` in one statement (a path defining nothing is
    left out)."""
    found: dict[str, set[str]] = {}
    try:
        rows = conn.execute(
            "SELECT DISTINCT f.path, s.leaf FROM genome_symbols s JOIN genome_symbol_files f "
            "ON f.key = s.key WHERE f.path IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(set(paths))),),
        ).fetchall()
    except sqlite3.OperationalError:
        return found
    for path, leaf in rows:
        found.setdefault(path, set()).add(leaf)
    return found


def found_in_place(
    conn: sqlite3.Connection, wanted: Collection[tuple[str, str]]
) -> set[tuple[str, str]]:
    """The ``(path, name)`` pairs of ``wanted`` that :func:`find_in` finds, asked in one
    statement however many there are."""
    leaf_of = {(path, name): normalize_name(name).rpartition(SEPARATOR)[2] for path, name in wanted}
    if not leaf_of:
        return set()
    cur = conn.cursor()
    cur.row_factory = None
    try:
        rows = cur.execute(
            "SELECT s.leaf, f.path, s.name, s.kind, s.first_line, s.last_line, s.body, s.formers "
            "FROM genome_symbols s JOIN genome_symbol_files f ON f.key = s.key "
            "WHERE f.path IN (SELECT value FROM json_each(?)) "
            "AND s.leaf IN (SELECT value FROM json_each(?))",
            (
                json.dumps(sorted({path for path, _ in wanted})),
                json.dumps(sorted(set(leaf_of.values()))),
            ),
        ).fetchall()
    except sqlite3.OperationalError:  # no symbol index yet
        return set()
    by_place: dict[tuple[str, str], list[Located]] = {}
    for leaf, *rest in rows:
        by_place.setdefault((rest[0], leaf), []).append(Located(*rest))
    return {
        (path, name)
        for (path, name), leaf in leaf_of.items()
        if _matches(by_place.get((path, leaf), []), normalize_name(name))
    }
