"""Guarded memories whose anchored symbol moved into the file an agent is about to edit.

A guard on ``ip/iproute.c::iproute_modify`` protects that function wherever it went: once the
symbol index finds it relocated to ``ip/route.c`` (the file renamed, split, or the code moved),
an edit of ``ip/route.c`` falls under the guard as an edit of the old file did. One indexed
query answers for a store with no guarded memory anchored elsewhere, which is the usual case:
the genome is opened only when such a memory names a symbol the edited file defines.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore

_GUARDED_ELSEWHERE = (
    "SELECT DISTINCT m.id, a.leaf FROM memories m JOIN memory_anchors a "
    "ON a.memory_rowid = m.rowid WHERE m.guard = 1 AND m.status = 'active' AND a.path != ?"
)


def moved_in(project: MemoryStore, path: str) -> list[Memory]:
    """The active guarded memories with a symbol anchored in another file that the symbol
    index finds relocated to ``path``, each with that anchor pointed at ``path``."""
    try:
        rows = project.conn.execute(_GUARDED_ELSEWHERE, (path,)).fetchall()
    except sqlite3.OperationalError:  # an index from before symbol anchors
        return []
    if not rows:
        return []
    from recall.genome.symbols.lookup import leaves_in

    defined = set(leaves_in(project.conn, path))
    ids = sorted({row[0] for row in rows if row[1] in defined})
    if not ids:
        return []
    from recall.anchors.states import RELOCATED, states_of
    from recall.anchors.symbols import SymbolAnchor
    from recall.genome import Genome

    genome = Genome(project.repo_root, project.conn)
    found: list[Memory] = []
    for memory_id in ids:
        memory = project.get(memory_id)
        moved = [
            SymbolAnchor(path, s.anchor.name, s.anchor.body)
            for s in states_of(memory.anchors, genome)
            if s.state == RELOCATED and s.found is not None and s.found.path == path
        ]
        if moved:
            found.append(memory.with_changes(anchors=tuple(moved)))
    return found
