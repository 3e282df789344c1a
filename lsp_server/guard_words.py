"""How the editor's guard and supersede commands refuse a guard, naming their own arguments
(``memoryId``, ``guard``): the engine's wording names the CLI's flags, which a person in an
editor never typed."""

from __future__ import annotations

from recall.locations import GLOBAL
from recall.model import GUARD_CATEGORIES, Memory

NO_EDIT_ASKED = (
    "a guard protects the files of one repository, and the global store belongs to none, so "
    "no edit would ever be asked about"
)


def guard_refusal(scope: str, memory: Memory) -> str | None:
    """Why ``tether.guard`` refuses to guard ``memory`` of the ``scope`` store, or None when
    it may (or when the engine's own answer names no CLI flag: already guarded, retired)."""
    if scope == GLOBAL:
        return (
            f"memory {memory.id} (memoryId) is in the global store; {NO_EDIT_ASKED}; to guard "
            'it, remember it in the project store (tether.remember with "guard": true and '
            'without "global": true)'
        )
    if memory.guard or memory.status in ("deleted", "superseded"):
        return None
    if memory.category not in GUARD_CATEGORIES:
        return (
            f"a guard protects a {' or '.join(GUARD_CATEGORIES)}, not a {memory.category}; to "
            f'guard it, supersede {memory.id} with one (tether.supersede with "category": '
            '"decision" and "guard": true)'
        )
    if not memory.files and not memory.anchors:
        return (
            f"memory {memory.id} names no file or symbol, so a guard on it would cover nothing; "
            f'supersede it with one that names them (tether.supersede with "files" and "guard": '
            "true)"
        )
    return None


def global_supersede(memory_id: str) -> str:
    """Why ``tether.supersede`` refuses ``"guard": true`` for a memory of the global store
    (its replacement goes in the same store)."""
    return (
        f"memory {memory_id} (memoryId) is in the global store, where its replacement goes too; "
        f'{NO_EDIT_ASKED}; drop the "guard": true argument, or remember the memory in the '
        'project store (tether.remember with "guard": true and without "global": true)'
    )
