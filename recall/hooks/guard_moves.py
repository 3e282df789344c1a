"""Guarded memories of a file beyond its ``files``: those with a symbol anchored in it, and
those whose anchored symbol moved into it.

A guard on ``ip/iproute.c::iproute_modify`` protects that function wherever it went: once the
function is defined in ``ip/route.c`` and no longer in ``ip/iproute.c`` (the file renamed,
split, or the code moved), an edit of ``ip/route.c`` falls under the guard as an edit of the
old file did. The files are read as they are on disk, never through the symbol index, which a
hook leaves behind the working tree. One indexed query answers for a store with no guarded
memory anchored elsewhere, which is the usual case; a file is parsed only when the edited
file's text names a symbol guarded elsewhere.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from recall.anchors.symbols import SymbolAnchor
    from recall.genome.symbols.model import Definition
    from recall.model import Memory
    from recall.store import MemoryStore

MOVED_FROM: Final = "moved_from"
"""The key of a moved-in anchor's ``extra`` naming the file it was anchored in."""

_GUARDED = "m.guard = 1 AND m.status = 'active'"
# CROSS JOIN keeps the anchors as the outer loop (SQLite never reorders it): a store holds
# far fewer anchors than memories, and left to itself the planner walks every active memory
# by the status index first (about 20 ms at 30,000 memories, twice on every edit).
_ANCHORS_FIRST = "FROM memory_anchors a CROSS JOIN memories m ON m.rowid = a.memory_rowid"
_ANCHORED_HERE = (
    f"SELECT DISTINCT m.id {_ANCHORS_FIRST} WHERE {_GUARDED} AND a.path = ? ORDER BY m.id"
)
_GUARDED_ELSEWHERE = (
    f"SELECT DISTINCT m.id, a.leaf {_ANCHORS_FIRST} WHERE {_GUARDED} AND a.path != ?"
)


def anchored_here(project: MemoryStore, path: str) -> list[Memory]:
    """The active guarded memories with a symbol anchored in ``path`` (whether or not their
    ``files`` name it: front matter written by hand may not)."""
    try:
        rows = project.conn.execute(_ANCHORED_HERE, (path,)).fetchall()
    except sqlite3.OperationalError:  # an index from before symbol anchors
        return []
    return [project.get(row[0]) for row in rows]


def _definitions(root: Path, path: str, *, certain: bool) -> list[Definition] | None:
    """What the file on disk defines; None when that is not known (unreadable, or, when
    ``certain``, not read by tree-sitter without a syntax error); an empty list when the file
    is gone."""
    from recall.genome.symbols.extract import TREE_SITTER, read_file

    if not (root / path).is_file():
        return []
    read = read_file(path, str(root / path))
    unsure = read.parser != TREE_SITTER or read.syntax_errors
    if read.parser.startswith("skipped") or (certain and unsure):
        return None
    return read.definitions


def _read_text(root: Path, path: str) -> str | None:
    from recall.containment import read_plain_prefix
    from recall.genome.limits import MAX_SCAN_BYTES

    try:
        return read_plain_prefix(root / path, MAX_SCAN_BYTES + 1).decode("utf-8", "replace")
    except OSError:
        return None


def moved_in(project: MemoryStore, path: str) -> list[Memory]:
    """The active guarded memories with a symbol anchored in another file that the file there
    no longer defines and ``path`` does (with the recorded body, or new there: not defined
    there when the anchored file last defined it, see :mod:`recall.anchors.prior`), each with
    that anchor pointed at ``path`` (its ``extra`` names where it came from). When ``path``
    cannot be parsed for certain, a symbol whose name its text holds counts as moved in: a
    guard is never missed for want of a parse."""
    try:
        rows = project.conn.execute(_GUARDED_ELSEWHERE, (path,)).fetchall()
    except sqlite3.OperationalError:  # an index from before symbol anchors
        return []
    if not rows:
        return []
    root = project.repo_root
    text = _read_text(root, path)
    if text is None:
        return []
    ids = sorted({row[0] for row in rows if row[1] and row[1] in text})
    if not ids:
        return []
    from recall.genome.symbols.grammars import one_family
    from recall.genome.symbols.model import named, normalize_name

    here = _definitions(root, path, certain=True)
    from recall.anchors.prior import had_before

    history = had_before(root)
    found: list[Memory] = []
    for memory_id in ids:
        memory = project.get(memory_id)
        moved: list[SymbolAnchor] = []
        for anchor in memory.anchors:
            if anchor.path == path or normalize_name(anchor.name).rpartition(".")[2] not in text:
                continue
            if not one_family(anchor.path, path):
                continue  # another language's function of that name
            if here is not None and not named(here, anchor.name):
                continue  # the edited file, read for certain, does not define it
            left = _definitions(root, anchor.path, certain=False)
            if left is not None and named(left, anchor.name):
                continue  # still where it was anchored
            if not _same_code(here, anchor) and history is not None and history(anchor, path):
                continue  # defined here all along: another function of the same name
            moved.append(_pointed_at(anchor, path))
        if moved:
            found.append(memory.with_changes(anchors=tuple(moved)))
    return found


def _same_code(here: list[Definition] | None, anchor: SymbolAnchor) -> bool:
    """Whether the edited file's definition of the anchored name has the recorded body."""
    from recall.genome.symbols.model import named, same_code

    recorded = anchor.body
    return recorded is not None and any(
        same_code(recorded, d.body, d.formers) for d in named(here or [], anchor.name)
    )


def _pointed_at(anchor: SymbolAnchor, path: str) -> SymbolAnchor:
    from recall.anchors.symbols import SymbolAnchor

    return SymbolAnchor(path, anchor.name, anchor.body, {MOVED_FROM: anchor.path})


def renamed_here(memory: Memory, path: str, names: tuple[str, ...]) -> Memory:
    """``memory``, which names ``path`` or one of its earlier ``names``, with its anchors in an
    earlier name pointed at ``path``: a symbol that went with its file's rename is guarded in
    the renamed file as one that moved into it (see :func:`moved_in`)."""
    if path in memory.files or not any(a.path in names[1:] for a in memory.anchors):
        return memory
    anchors = [_pointed_at(a, path) if a.path in names[1:] else a for a in memory.anchors]
    return memory.with_changes(anchors=tuple(anchors))
