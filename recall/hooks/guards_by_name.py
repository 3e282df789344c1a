"""The guards an edit hook asks about on a file by the file's names alone (its symbols aside):
the active guarded memories naming it by its name now or by one it had, through a rename only
staged (``git mv`` not committed yet) as well as the committed ones, and the guards of memory
files the store cannot load (a merge conflict, broken front matter) that name it so; and the
gotchas it warns about by a name such a staged rename left behind.

The hook finds them with these same functions; the language server takes them from here and
shows those recall does not rank for the file (recall follows committed renames only), so the
editor shows every such guard the hook would ask about and every such gotcha it would warn of.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from recall.hooks.guard_moves import renamed_here
from recall.hooks.guard_names import dated_earlier, names_it
from recall.hooks.guard_unloaded import Unloaded, unloaded_guards
from recall.model import WARNING_CATEGORIES

if TYPE_CHECKING:
    from recall.file_names import EarlierName
    from recall.model import Memory
    from recall.store import MemoryStore


@dataclass(frozen=True)
class NamedGuards:
    """The guards of one file found by its names, and the gotchas of a name a staged rename
    left behind."""

    names: tuple[str, ...]
    """The file's names: its own first, then those it had, latest first."""
    indexed: list[Memory]
    """The guarded memories of the index naming it by one of :attr:`names` (an earlier one
    only when written before the file left that name), anchors on an earlier name pointed at
    the file."""
    unloaded: list[Unloaded]
    """The guards of memory files the store cannot load naming it by one of :attr:`names`."""
    staged_gotchas: list[Memory]
    """The memories the hook warns about on the file (gotchas, rejected approaches) that name it
    only by a name a rename only staged left behind, as the hook finds them: none without
    such a rename. Recall follows committed renames only, so it finds none of these."""


def guards_by_name(project: MemoryStore, path: str, notice: Callable[[str], None]) -> NamedGuards:
    """The guards an edit of ``path`` (relative to ``project``'s repository) asks about by the
    file's names, as the pre-edit hook finds them, and the gotchas it warns about by a name a
    staged rename left; a guard read from a file the store cannot load is said to ``notice``.
    (Disuse never hides a guard: none is left out for it. It hides a gotcha, as in the hook.)"""
    from recall.hooks.staged_renames import staged_earlier

    staged = staged_earlier(project, path)
    # the names the hook gives the file before an edit (dated_earlier with staged=True)
    earlier = staged if staged is not None else dated_earlier(project, path)
    names = (path, *(n.name for n in earlier))
    before = {n.name: n.before for n in earlier}
    indexed = [
        renamed_here(memory, path, names)
        for memory in project.guarding_or_warning(path, names[1:])
        if memory.guard and names_it(memory, names, before)
    ]
    gotchas = [] if staged is None else _staged_gotchas(project, path, names, staged)
    return NamedGuards(names, indexed, unloaded_guards(project, names, notice), gotchas)


def _staged_gotchas(
    project: MemoryStore, path: str, names: tuple[str, ...], earlier: list[EarlierName]
) -> list[Memory]:
    """The warnings the hook shows on ``path`` (:func:`recall.hooks.on_file.memories_on_file`)
    named by none of ``path``'s own name: by ``earlier``, the names a staged rename gives it."""
    from recall.hooks.on_file import memories_on_file
    from recall.lifecycle.disuse import archived_by_disuse

    hidden = archived_by_disuse(project.conn)
    return [
        memory
        for memory in memories_on_file(project, path, names, hidden, earlier)
        if memory.category in WARNING_CATEGORIES and path not in memory.files
    ]
