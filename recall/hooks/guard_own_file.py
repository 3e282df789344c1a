"""An edit of a guarded memory's own file: it could lift the guard (``guard: false``), or
rewrite what the guard holds, so it asks first, as an edit of the code under the guard does.
A guard is lifted by a person (``tether unguard``); no MCP tool lifts one, and an agent's edit
of the file must not either. Nor may an edit of another memory file retire a guarded memory
behind the person's back: one that writes a ``supersedes:`` naming it (recall would then
show the replacement instead) asks the same way."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall.hooks.edit_writes import EditWrites
    from recall.model import Memory
    from recall.store import MemoryStore


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


def guarded_superseded_by(project: MemoryStore, path: str, writes: EditWrites) -> list[Memory]:
    """The guarded memories an edit of memory file ``path`` newly names as superseded: the
    ``supersedes`` of the file as the edit leaves it, read as its front matter reads (quoted
    keys, tags, a value on its own line), less the one it names now. When what the file will
    say cannot be told (its text unreadable, an edit's old text missing, a front matter that
    does not read), every guarded memory whose id the edit writes counts."""
    if not writes.fragments() or not _in_memory_folder(project, path):
        return []
    guarded = [
        row[0]
        for row in project.conn.execute(
            "SELECT id FROM memories WHERE guard = 1 AND status != 'deleted' ORDER BY id"
        )
    ]
    if not guarded:
        return []
    file = project.repo_root / path if project.repo_root is not None else None
    try:
        before = file.read_text(encoding="utf-8") if file is not None and file.is_file() else ""
    except (OSError, UnicodeError):
        before = None
    after = writes.applied_to(before) if before is not None else None
    named = _superseded(after, path) if after is not None else None
    if named is None:
        named = {i for i in guarded if any(i in text for text in writes.fragments())}
    else:
        named -= _superseded(before, path) or set()
    return [project.get(memory_id) for memory_id in guarded if memory_id in named]


def _superseded(text: str | None, path: str) -> set[str] | None:
    """The id a memory file's text says it supersedes (none for no text); None when its front
    matter does not read."""
    if not text:
        return set()
    from recall import frontmatter
    from recall.errors import MalformedMemory

    try:
        value = frontmatter.parse(text, path).fields.get("supersedes")
    except MalformedMemory:
        return None
    return {str(value)} if value not in (None, "") else set()
