"""An edit of a guarded memory's own file: it could lift the guard (``guard: false``), or
rewrite what the guard holds, so it asks first, as an edit of the code under the guard does.
A guard is lifted by a person (``tether unguard``); no MCP tool lifts one, and an agent's edit
of the file must not either. Nor may an edit of another memory file retire a guarded memory
behind the person's back: one that writes a ``supersedes:`` naming it (recall would then
show the replacement instead) asks the same way."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


_SUPERSEDES_LINE = re.compile(r"""^\s*supersedes\s*:\s*["']?([^\s"'#]+)""", re.M)
"""A front-matter line naming the memory this one replaces, and its id."""


def _in_memory_folder(project: MemoryStore, path: str) -> bool:
    """Whether ``path`` (relative to the repository) is a file of ``project``'s memory folder."""
    root = project.repo_root
    if root is None:
        return False
    try:
        folder = project.location.memories_dir.relative_to(root).as_posix()
    except ValueError:  # a store outside its repository (the global one): none of its files
        return False
    return posixpath.dirname(path) == folder


def guarded_by_its_file(project: MemoryStore, path: str) -> list[Memory]:
    """The guarded memory whose file is ``path`` (relative to the repository), as a list of
    none or one; a file of the memory folder that holds no guarded memory asks nothing."""
    if not _in_memory_folder(project, path):
        return []
    row = project.conn.execute(
        "SELECT id FROM memories WHERE name = ? AND guard = 1 AND status != 'deleted'",
        (posixpath.basename(path),),
    ).fetchone()
    return [] if row is None else [project.get(row[0])]


def guarded_linked_by(project: MemoryStore, path: str, written: Sequence[str]) -> list[Memory]:
    """The guarded memories that the texts ``written`` into memory file ``path`` name as
    superseded (``supersedes:``); none for a file outside the memory folder."""
    ids = {found for text in written for found in _SUPERSEDES_LINE.findall(text)}
    if not ids or not _in_memory_folder(project, path):
        return []
    rows = project.conn.execute(
        "SELECT id FROM memories WHERE guard = 1 AND status != 'deleted' AND id IN "
        "(SELECT value FROM json_each(?)) ORDER BY id",
        (json.dumps(sorted(ids)),),
    )
    return [project.get(row[0]) for row in rows]
