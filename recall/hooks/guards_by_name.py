"""The guards an edit hook asks about on a file by the file's names alone (its symbols aside):
the active guarded memories naming it by its name now or by one it had, through a rename only
staged (``git mv`` not committed yet) as well as the committed ones, and the guards of memory
files the store cannot load (a merge conflict, broken front matter) that name it so.

The hook finds them with these same functions; the language server takes them from here and
shows those recall does not rank for the file, so the editor shows every such guard the hook
would ask about.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from recall.hooks.guard_moves import renamed_here
from recall.hooks.guard_names import dated_earlier, names_it
from recall.hooks.guard_unloaded import Unloaded, unloaded_guards

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


@dataclass(frozen=True)
class NamedGuards:
    """The guards of one file found by its names."""

    names: tuple[str, ...]
    """The file's names: its own first, then those it had, latest first."""
    indexed: list[Memory]
    """The guarded memories of the index naming it by one of :attr:`names` (an earlier one
    only when written before the file left that name), anchors on an earlier name pointed at
    the file."""
    unloaded: list[Unloaded]
    """The guards of memory files the store cannot load naming it by one of :attr:`names`."""


def guards_by_name(project: MemoryStore, path: str, notice: Callable[[str], None]) -> NamedGuards:
    """The guards an edit of ``path`` (relative to ``project``'s repository) asks about by the
    file's names, as the pre-edit hook finds them; a guard read from a file the store cannot
    load is said to ``notice``. (Disuse never hides a guard: none is left out for it.)"""
    earlier = dated_earlier(project, path, staged=True)
    names = (path, *(n.name for n in earlier))
    before = {n.name: n.before for n in earlier}
    indexed = [
        renamed_here(memory, path, names)
        for memory in project.guarding_or_warning(path, names[1:])
        if memory.guard and names_it(memory, names, before)
    ]
    return NamedGuards(names, indexed, unloaded_guards(project, names, notice))
