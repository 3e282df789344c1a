"""Guarding a memory, and taking the guard off: ``guard: true`` in its file.

A guarded decision or gotcha makes an agent's edit under it ask the person first (the
pre-edit hook), shows as an error in the editor, and fails ``tether check`` while code under it
changed without a confirm. Taking the guard off removes the key from the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from recall.errors import BadInput, NothingToDo
from recall.model import GUARD_CATEGORIES

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


def check_guard(
    guard: bool, category: str, option: str = "--guard", *, covers: bool = True
) -> bool:
    """Validate ``guard`` for a memory of ``category`` that names files or symbols
    (``covers``); raises :class:`BadInput` for a category a guard does not fit, or a memory
    naming nothing for it to cover, telling to drop ``option`` (how the guard was given)."""
    if guard and category not in GUARD_CATEGORIES:
        raise BadInput(
            f"a guard protects a {' or '.join(GUARD_CATEGORIES)}, not a {category}; "
            f"drop {option} or change the category"
        )
    if guard and not covers:
        raise BadInput(uncovered(option))
    return guard


def uncovered(option: str) -> str:
    """Why a guard on a memory naming no file or symbol is refused: it would cover nothing
    (an edit asks only under a guard's files and symbols), so it would protect nothing."""
    return (
        "a guard covers the files and symbols its memory names, and this one names none, so "
        f"no edit would ever be asked about; name the files (or symbols) or drop {option}"
    )


def carried_guard(old: Memory, category: str) -> tuple[bool, str | None]:
    """The guard a memory replacing ``old`` with ``category`` keeps (a guard is lifted on
    purpose, with ``unguard``, not by superseding), and a note when it cannot be kept: the
    new category takes no guard."""
    if not old.guard:
        return False, None
    if category in GUARD_CATEGORIES:
        return True, None
    return False, (
        f"{old.id} was guarded, but a {category} takes no guard: the memory replacing it is "
        "not guarded"
    )


def set_guard(store: MemoryStore, ref: str, guard: bool) -> Memory:
    """Guard (or unguard) a memory; NothingToDo when it already is, BadInput for a category a
    guard does not fit."""
    from recall.frontmatter import REMOVE

    memory = store.get(ref)
    if memory.guard == guard:
        raise NothingToDo(f"memory {memory.id} is already {'guarded' if guard else 'unguarded'}")
    if guard and memory.category not in GUARD_CATEGORIES:
        raise BadInput(
            f"a guard protects a {' or '.join(GUARD_CATEGORIES)}, not a {memory.category}; to "
            f"guard it, supersede {memory.id} with one (`tether supersede {memory.id} SUMMARY "
            "-c decision --guard`)"
        )
    if guard and not memory.files and not memory.anchors:
        raise BadInput(
            f"memory {memory.id} names no file or symbol, so a guard on it would cover "
            f"nothing; supersede it with one that names them (`tether supersede {memory.id} "
            "SUMMARY -c decision -f PATH --guard`)"
        )
    return store.update_fields(memory.id, {"guard": True if guard else REMOVE})
