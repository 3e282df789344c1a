"""The names of a file in a submodule's work tree: git's history renames a submodule moved to
another folder, never the files in it, so such a file goes by the names its folder had
(:mod:`recall.file_names` asks these for a path with no renames of its own). Nothing of the
genome's package is imported: the edit hook reads these too."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection

SUBMODULES_STATE = "submodules"
"""The bookkeeping key (``genome_state``) listing the submodules' folders (a JSON list): the
files in their work trees are files of the repository to recall and doctor, though git lists
none of them."""


def submodule_of(path: str, folders: Collection[str]) -> str | None:
    """The folder of ``folders`` (the submodules') whose work tree ``path`` lies in, or None."""
    if "/" not in path:
        return None
    return next((folder for folder in folders if path.startswith(folder + "/")), None)


def submodule_steps(
    path: str, folders: Collection[str], steps: Callable[[str], list[tuple[str, int]]]
) -> list[tuple[str, int]]:
    """For ``path`` in the work tree of a submodule (one of ``folders``), the steps ``steps``
    gives the submodule's folder (:func:`backward_steps`), each name the file's name in it:
    git's history renames a submodule moved to another folder, never the files in it. None
    for any other path."""
    folder = submodule_of(path, folders)
    if folder is None:
        return []
    return [(name + path[len(folder) :], seq) for name, seq in steps(folder)]


def submodule_forward(
    path: str, folders: Collection[str], forward: Callable[[str], str | None]
) -> str | None:
    """The name a file ``path`` has now in the work tree of a submodule (one of ``folders``)
    that a folder around ``path`` was renamed to (``forward``: :func:`follow_forward` of a
    name), the nearest folder first; None when no such folder was renamed to a submodule's."""
    folder = path.rpartition("/")[0] if folders else ""
    while folder:
        moved = forward(folder)
        if moved is not None and moved in folders:
            return moved + path[len(folder) :]
        folder = folder.rpartition("/")[0]
    return None


def submodules(conn: sqlite3.Connection) -> list[str]:
    """The submodules' folders as the genome's last refresh listed them (none before one)."""
    row = conn.execute(
        "SELECT value FROM genome_state WHERE key = ?", (SUBMODULES_STATE,)
    ).fetchone()
    return json.loads(row[0]) if row and row[0] else []


def submodule_left(
    path: str, folders: Collection[str], left_step: Callable[[str], tuple[str, int] | None]
) -> tuple[str, int] | None:
    """For ``path`` in the work tree of a submodule (one of ``folders``) whose folder another
    submodule was renamed away from, the step ``left_step`` gives the folder
    (:func:`recall.file_names.left_step`) for ``path`` (that rename's commit number); None for
    any other path."""
    folder = submodule_of(path, folders)
    step = left_step(folder) if folder is not None else None
    return (path, step[1]) if step is not None else None
