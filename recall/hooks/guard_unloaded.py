"""The guards of memory files the store cannot load (a merge conflict, a file over the size
limit, broken front matter): such a file is out of the index, so no guard of it is found
there, and an edit of a file it guards would pass without a word. The store keeps what it
could not load (:meth:`recall.store.MemoryStore.problems`; none, the usual case, costs one
empty read); each such file is read as ``tether check`` reads the guards at the base
(:mod:`recall.anchors.base_guards`): as the last commit has it, and as far as the file itself
can be read now. A guard in either version asks, and the question says the file cannot be read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall.hooks.logfile import _notice

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore
    from recall.store.results import Problem

HEAD_BYTES: Final = 64 * 1024
"""How much of an unloadable file in the working tree is read for its front matter: the default
size limit of a memory file (:data:`recall.memfiles.MAX_FILE_BYTES`), so a file far over it is
never read whole inside an edit."""

LAST_COMMIT: Final = "as the last commit has it"
AS_WRITTEN: Final = "as far as the file can be read"


@dataclass(frozen=True)
class Unloaded:
    """A guarded memory whose file the store cannot load, and why."""

    memory: Memory
    """The memory as it could be read (guarded, active)."""
    file: str
    """Its file, relative to the repository root."""
    problem: Problem
    """Why the store cannot load it (the line and the message)."""
    read: str
    """Which version was read: :data:`LAST_COMMIT` or :data:`AS_WRITTEN`."""


def unloaded_guards(
    project: MemoryStore, names: tuple[str, ...], notice: Callable[[str], None]
) -> list[Unloaded]:
    """The guarded memories of the files ``project`` cannot load that name the edited file by
    one of its ``names`` (or anchor a symbol there), each once; each found is said to
    ``notice``, with the version it was read from."""
    problems = project.problems()
    root = project.repo_root
    if not problems or root is None:
        return []
    folder = project.location.memories_dir
    relative = {p: _relative(p.path, root) for p in problems}
    committed = _committed(project, root, folder, [r for r in relative.values() if r])
    found: list[Unloaded] = []
    seen: set[str] = set()
    for problem in problems:
        file = relative[problem]
        versions = [(_as_written(project, problem.path, file), AS_WRITTEN)]
        versions.append((committed.get(file) if file else None, LAST_COMMIT))
        for memory, read in versions:
            if memory is None or memory.id in seen or not _guards(memory, names):
                continue
            seen.add(memory.id)
            shown = file or str(problem.path)
            found.append(Unloaded(memory, shown, problem, read))
            notice(
                f"{shown}:{problem.line}: {problem.message}; the memory file cannot be read, so "
                f"its guard [{memory.id}] on {names[0]} is read {read} and asks all the same"
            )
            break
    return found


def _relative(path: Path, root: Path) -> str | None:
    """``path`` relative to the repository ``root``, None when it lies outside."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else None


def _guards(memory: Memory, names: tuple[str, ...]) -> bool:
    """Whether ``memory`` is an active guard naming one of ``names`` or anchored in one."""
    if not memory.guard or memory.status != "active":
        return False
    return any(n in memory.files for n in names) or any(a.path in names for a in memory.anchors)


def _committed(
    project: MemoryStore, root: Path, folder: Path, files: list[str]
) -> dict[str, Memory]:
    """The memories ``files`` hold as HEAD has them (none when git cannot say)."""
    if not files or not folder.is_relative_to(root):
        return {}
    from recall.anchors.base_guards import memories_at
    from recall.errors import TetherError

    where = folder.relative_to(root).as_posix()
    try:
        return memories_at(root, "HEAD", where, set(files), project.normalize_stored)
    except TetherError:  # no commit yet, or git unusable: the file as written still counts
        return {}


def _as_written(project: MemoryStore, path: Path, file: str | None) -> Memory | None:
    """The memory the file at ``path`` holds now, read to :data:`HEAD_BYTES` at most (cut at
    its last whole line): its front matter and summary, which is all a guard needs."""
    from recall.anchors.base_guards import parse_memory

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(HEAD_BYTES + 1)
    except OSError:
        return None
    if len(data) > HEAD_BYTES:
        data = data[: data.rfind(b"\n", 0, HEAD_BYTES) + 1]
    return parse_memory(file or path.name, data, project.normalize_stored)


def unloaded_asks(
    project: MemoryStore, session: str, path: str, names: tuple[str, ...], asked: list[Memory]
) -> list[Unloaded]:
    """The guards of unloadable memory files an edit of ``path`` (by one of its ``names``)
    asks about, beside those ``asked`` already and those this ``session`` was let past. Never
    raises: a failure is logged and leaves the other guards to ask."""
    from recall.hooks.guarded import not_yet_allowed
    from recall.hooks.session_notes import logged

    try:
        found = unloaded_guards(project, names, _notice)
        if not found:
            return []
        known = {m.id for m in asked}
        fresh = not_yet_allowed(project.conn, session, path, [u.memory for u in found])
        keep = {m.id for m in fresh} - known
        return [u for u in found if u.memory.id in keep]
    except Exception:
        logged("reading the guards of unloadable memory files for %s failed", path)
        return []
