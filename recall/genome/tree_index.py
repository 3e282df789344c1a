"""Indexing the working tree: which files exist, their import specifiers, and fan-in.

Import specifiers are cached per file under a content key (git's blob id for files in step
with the index, size and modification time otherwise), so a refresh reads only the source
files that changed. Fan-in is recomputed over the whole tree, but only when something it
depends on changed.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from recall.genome.gitcmd import GitRunner
from recall.genome.imports import is_config, language_for
from recall.genome.imports.fanin import count_fan_in
from recall.genome.imports.repofiles import RepoFiles
from recall.genome.imports.scan import read_source, stat_key
from recall.genome.names import NOT_CHECKED_OUT
from recall.genome.tree import list_tree

Progress = Callable[[str, int, int | None], None]

# Files scanned between two progress reports.
PROGRESS_EVERY = 200

# A row of genome_tree without its path: (content key, specifiers, skip reason, fan-in).
Row = tuple[str | None, str | None, str | None, int]


@dataclass
class TreeBatch:
    """The tree as it will be stored, and what it took to read it."""

    rows: dict[str, Row] = field(default_factory=dict)
    stored: dict[str, Row] = field(default_factory=dict)
    listed_at: float = 0.0
    scanned: int = 0
    cached: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    edges: int | None = 0
    gitlinks: list[str] = field(default_factory=list)
    """The submodules' folders."""
    unnamed: list[str] = field(default_factory=list)
    """The files left out because their names are not UTF-8 (surrogate escapes)."""


def stored_rows(conn: sqlite3.Connection) -> dict[str, Row]:
    """The stored tree, path → row."""
    cur = conn.cursor()
    cur.row_factory = None
    try:
        rows = cur.execute("SELECT path, key, specs, skip, fan_in FROM genome_tree")
        return {path: (key, specs, skip, fan_in) for path, key, specs, skip, fan_in in rows}
    except sqlite3.OperationalError:
        return {}


def read_tree(
    runner: GitRunner,
    root: Path,
    stored: dict[str, Row],
    use_cache: bool,
    progress: Progress | None = None,
) -> TreeBatch:
    """List the tree, scan changed source files and compute fan-in; writes nothing.

    ``stored`` is the tree as last written; its import scans are reused when ``use_cache``.
    Fan-in is recomputed only when a file appeared or went, a source file's imports changed
    or a configuration file (go.mod, tsconfig.json…) changed. Touches no database, so it
    can run on a thread beside the history read.
    """
    batch = TreeBatch(stored=stored, listed_at=time.time())
    listing = list_tree(runner, batch.gitlinks, batch.unnamed)
    cache = stored if use_cache else {}
    rows = batch.rows
    pending: list[tuple[str, str]] = []
    for path, entry in listing.items():
        if entry.sparse:  # nothing on disk to read: listed, with no imports of its own
            rows[path] = (None, None, NOT_CHECKED_OUT, 0)
            continue
        language = None if entry.symlink else language_for(path)
        if language is None and not is_config(path):
            rows[path] = (None, None, None, 0)
            continue
        key = entry.blob
        if key is None:
            try:
                key = stat_key(os.lstat(root / path))
            except OSError:
                continue
        old = cache.get(path)
        if language is None:
            rows[path] = (key, None, None, 0)
        elif old is not None and old[0] == key and (old[1] is not None or old[2] is not None):
            rows[path] = old
            batch.cached += 1
        else:
            pending.append((path, key))
    _scan(batch, root, pending, progress)
    if not use_cache or _fan_in_moved(rows, stored):
        _apply_fan_in(batch, root)
    else:
        batch.edges = None
        for path, row in rows.items():
            old = stored.get(path)
            if old is not None and row[3] != old[3]:
                rows[path] = (row[0], row[1], row[2], old[3])
    return batch


def _scan(
    batch: TreeBatch, root: Path, pending: list[tuple[str, str]], progress: Progress | None
) -> None:
    """Read and extract the imports of each pending source file."""
    total = len(pending)
    for done, (path, key) in enumerate(pending, 1):
        source = read_source(root / path)
        if source.text is None:
            batch.rows[path] = (key, None, source.skipped, 0)
            batch.skipped[source.skipped or ""] += 1
        else:
            language = language_for(path)
            assert language is not None
            batch.rows[path] = (key, "\n".join(language.extract(source.text)), None, 0)
            batch.scanned += 1
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == total):
            progress("scanning imports", done, total)


def _fan_in_moved(rows: dict[str, Row], stored: dict[str, Row]) -> bool:
    """Tell whether anything that fan-in depends on differs from the stored tree."""
    if rows.keys() != stored.keys():
        return True
    for path, row in rows.items():
        old = stored[path]
        if row[1] != old[1] or (is_config(path) and row[0] != old[0]):
            return True
    return False


def _apply_fan_in(batch: TreeBatch, root: Path) -> None:
    rows = batch.rows
    specs = {path: row[1].split("\n") for path, row in rows.items() if row[1]}
    fan_in, batch.edges = count_fan_in(RepoFiles(root, rows), specs)
    for path, row in rows.items():
        count = fan_in.get(path, 0)
        if row[3] != count:
            rows[path] = (row[0], row[1], row[2], count)


def write_tree(conn: sqlite3.Connection, batch: TreeBatch, *, fresh: bool = False) -> None:
    """Store the tree, touching only rows that changed; the caller holds the transaction.

    ``fresh`` says the table was just created empty, so every row is written.
    """
    stored = {} if fresh else batch.stored
    rows = batch.rows
    conn.executemany(
        "DELETE FROM genome_tree WHERE path = ?", ((path,) for path in stored if path not in rows)
    )
    conn.executemany(
        "INSERT INTO genome_tree(path, key, specs, skip, fan_in) VALUES(?, ?, ?, ?, ?) "
        "ON CONFLICT(path) DO UPDATE SET key = excluded.key, specs = excluded.specs, "
        "skip = excluded.skip, fan_in = excluded.fan_in",
        ((path, *row) for path, row in rows.items() if stored.get(path) != row),
    )


def clear_tree(conn: sqlite3.Connection) -> None:
    """Forget the stored tree."""
    conn.execute("DELETE FROM genome_tree")
