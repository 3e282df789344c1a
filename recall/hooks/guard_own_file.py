"""An edit of a guarded memory's own file: it could lift the guard (``guard: false``), or
rewrite what the guard holds, so it asks first, as an edit of the code under the guard does.
A guard is lifted by a person (``tether unguard``); no MCP tool lifts one, and an agent's edit
of the file must not either."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


def guarded_by_its_file(project: MemoryStore, path: str) -> list[Memory]:
    """The guarded memory whose file is ``path`` (relative to the repository), as a list of
    none or one; a file of the memory folder that holds no guarded memory asks nothing."""
    root = project.repo_root
    if root is None:
        return []
    try:
        folder = project.location.memories_dir.relative_to(root).as_posix()
    except ValueError:  # a store outside its repository (the global one): none of its files
        return []
    if posixpath.dirname(path) != folder:
        return []
    row = project.conn.execute(
        "SELECT id FROM memories WHERE name = ? AND guard = 1 AND status != 'deleted'",
        (posixpath.basename(path),),
    ).fetchone()
    return [] if row is None else [project.get(row[0])]
