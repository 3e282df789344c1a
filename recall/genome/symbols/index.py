"""Building and storing the symbol index: definitions per content key, files per key.

A file's definitions are stored under its content key (git's blob id, or its path and stat key
for a file that differs from git's index), so a refresh parses only contents it has not seen:
an unchanged file, a renamed file and a file copied from another all reuse what is stored.
Reads nothing from the database on the worker thread: what is stored is handed in.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall.genome.limits import PARALLEL_PARSE_MIN, PARSE_THREADS
from recall.genome.symbols import grammars
from recall.genome.symbols.model import Definition

if TYPE_CHECKING:
    from recall.genome.symbols.extract import Extracted

# A row of genome_symbols without its key: (name, leaf, kind, first line, last line, body hash,
# whitespace-blind hash where the body hash is another form).
SymbolRow = tuple[str, str, str, int, int, str, str]


@dataclass
class StoredSymbols:
    """What the symbol tables held before the refresh: path → (key, parser), and known keys."""

    files: dict[str, tuple[str, str]] = field(default_factory=dict)
    keys: set[str] = field(default_factory=set)


@dataclass
class SymbolBatch:
    """The symbol index as it will be stored, and what it took to read it."""

    files: dict[str, tuple[str, str]] = field(default_factory=dict)
    new_rows: dict[str, list[SymbolRow]] = field(default_factory=dict)
    stored: StoredSymbols = field(default_factory=StoredSymbols)
    parsed: int = 0
    reused: int = 0
    parsers: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)


READER: Final = "r8"
"""Which reading of a content its stored definitions come from, part of every symbol key: a
reader that reads a content differently (r2: overloads one symbol, top-level blocks entered;
r3: the regex fallback reads Python decorators; r4: hashes blind to a formatter's changes, a
Rust type's ``impl`` blocks no symbols of their own; r5: a Python line's block depth, not
its indentation's width, a JavaScript getter and setter one symbol, a Java enum's methods
read; r6: a lone carriage return ends a line; r7: a Python function's nested definitions
read under its name; r8: a C++ or Java name defined several times in one scope one symbol, a
Python property's setter one symbol with a getter that nests a definition) gets a new one, so
the next refresh parses every file once anew instead of reusing the old."""


def symbol_key(path: str, key: str) -> str:
    """The key a file's definitions are stored under: its blob id, or its path and stat key
    (two files may share a size and a modification time, never a path), with the
    :data:`READER` that read it."""
    return f"{key}:{path}@{READER}" if key.startswith("stat:") else f"{key}@{READER}"


def stored_symbols(conn: sqlite3.Connection) -> StoredSymbols:
    """The stored symbol files and keys (empty when the tables do not exist yet)."""
    cur = conn.cursor()
    cur.row_factory = None
    try:
        files = {
            p: (k, parser)
            for p, k, parser in cur.execute("SELECT path, key, parser FROM genome_symbol_files")
        }
    except sqlite3.OperationalError:
        return StoredSymbols()
    return StoredSymbols(files, {key for key, _ in files.values()})


# Files whose fallback notes are kept for the summary; past it they are only counted.
MAX_NOTES = 20


def read_symbols(
    root: Path,
    tree_rows: dict[str, tuple[str | None, str | None, str | None, int]],
    stored: StoredSymbols,
    use_cache: bool,
) -> SymbolBatch:
    """Parse the source files whose content the index has not seen; touches no database."""
    batch = SymbolBatch(stored=stored)
    known = stored.keys if use_cache else set()
    parsers = {key: parser for key, parser in stored.files.values()} if use_cache else {}
    pending: dict[str, str] = {}  # key → the path it is read from
    reused: list[tuple[str, str]] = []
    for path, row in tree_rows.items():
        if row[0] is None or not grammars.reads(path):
            continue
        key = symbol_key(path, row[0])
        if key in known or key in pending:
            reused.append((path, key))
        else:
            pending[key] = path
            batch.files[path] = (key, "")
    for key, found in _parse_all(root, pending):
        batch.new_rows[key] = [_row(d) for d in found.definitions]
        batch.files[pending[key]] = (key, found.parser)
        batch.parsers[found.parser] += 1
        parsers[key] = found.parser
        batch.parsed += 1
        if found.note and len(batch.notes) < MAX_NOTES:
            batch.notes.append(found.note)
    for path, key in reused:
        batch.files[path] = (key, parsers.get(key, ""))
        batch.reused += 1
    return batch


def _parse_all(root: Path, pending: dict[str, str]) -> Iterator[tuple[str, Extracted]]:
    """Each pending key with what its file defines; many files are split between threads."""
    from recall.genome.symbols.extract import read_file

    def parse(key: str) -> tuple[str, Extracted]:
        path = pending[key]
        return key, read_file(path, str(root / path))

    if len(pending) < PARALLEL_PARSE_MIN:
        yield from map(parse, pending)
        return
    with ThreadPoolExecutor(max_workers=PARSE_THREADS) as pool:
        yield from pool.map(parse, pending, chunksize=16)


def _row(definition: Definition) -> SymbolRow:
    return (
        definition.name,
        definition.leaf,
        definition.kind,
        definition.start,
        definition.end,
        definition.body,
        definition.formers,
    )


def write_symbols(conn: sqlite3.Connection, batch: SymbolBatch, *, fresh: bool = False) -> None:
    """Store the batch, touching only what changed; the caller holds the write transaction.

    ``fresh`` says the tables were just created empty. Definitions of a key no file has any
    more are deleted.
    """
    stored = StoredSymbols() if fresh else batch.stored
    files = batch.files
    conn.executemany(
        "DELETE FROM genome_symbol_files WHERE path = ?",
        ((path,) for path in stored.files if path not in files),
    )
    conn.executemany(
        "INSERT INTO genome_symbol_files(path, key, parser) VALUES(?, ?, ?) "
        "ON CONFLICT(path) DO UPDATE SET key = excluded.key, parser = excluded.parser",
        ((path, *entry) for path, entry in files.items() if stored.files.get(path) != entry),
    )
    live = {key for key, _ in files.values()}
    conn.executemany(
        "DELETE FROM genome_symbols WHERE key = ?",
        ((key,) for key in (stored.keys - live) | set(batch.new_rows)),
    )
    conn.executemany(
        "INSERT INTO genome_symbols(key, name, leaf, kind, first_line, last_line, body, formers) "
        "VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
        ((key, *row) for key, rows in batch.new_rows.items() if key in live for row in rows),
    )


def clear_symbols(conn: sqlite3.Connection) -> None:
    """Forget the symbol index."""
    conn.execute("DELETE FROM genome_symbol_files")
    conn.execute("DELETE FROM genome_symbols")
