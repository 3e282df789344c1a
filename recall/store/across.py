"""A memory found by id across stores (the project's, then the user's global one)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from recall.errors import BadInput

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


def find_across(stores: Iterable[MemoryStore], ref: str) -> tuple[MemoryStore, Memory] | None:
    """The memory ``ref`` names in ``stores``: a whole id where it is (the first store holding
    it), a prefix only where it names one memory in all of them. A prefix two stores each
    hold once is ambiguous, as within one store (:class:`BadInput` naming both), never the
    first store's silently. None when no store holds it."""
    found: list[tuple[MemoryStore, Memory]] = []
    for store in stores:
        memory = store.find(ref)  # an ambiguous prefix within one store raises here
        if memory is None:
            continue
        if memory.id == ref.strip().lower():
            return store, memory
        found.append((store, memory))
    if len(found) > 1:
        named = ", ".join(f"{memory.id} ({store.scope})" for store, memory in found)
        raise BadInput(
            f"id prefix {ref.strip()!r} matches several memories ({named}); give more digits"
        )
    return found[0] if found else None
