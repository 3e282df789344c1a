"""A memory found by id across stores (the project's, then the user's global one)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from recall.errors import BadInput

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


def find_across(stores: Iterable[MemoryStore], ref: str) -> tuple[MemoryStore, Memory] | None:
    """The memory ``ref`` names in ``stores``: a whole id where it is, a prefix only where it
    names one memory in all of them. A prefix two stores each hold once is ambiguous, as
    within one store (:class:`BadInput` naming both), never the first store's silently; so is
    an id both stores hold (written by hand, or imported before imports kept ids apart), named
    with both files and how to tell them apart. None when no store holds it."""
    found: list[tuple[MemoryStore, Memory]] = []
    for store in stores:
        memory = store.find(ref)  # an ambiguous prefix within one store raises here
        if memory is not None:
            found.append((store, memory))
    whole = [pair for pair in found if pair[1].id == ref.strip().lower()]
    if len(whole) == 1:
        return whole[0]
    ids = {memory.id for _, memory in found}
    if len(found) > 1 and len(ids) == 1:
        raise BadInput(same_id_message(ref, found))
    if len(found) > 1:
        named = ", ".join(f"{memory.id} ({store.scope})" for store, memory in found)
        raise BadInput(
            f"id prefix {ref.strip()!r} matches several memories ({named}); give more digits"
        )
    return found[0] if found else None


def same_id_message(ref: str, found: list[tuple[MemoryStore, Memory]]) -> str:
    """What to do when every store of ``found`` holds a memory with the one id ``ref`` names:
    no id reaches either, so one of them must be given another."""
    memory_id = found[0][1].id
    files = "; ".join(f"the {store.scope} store's {store.path_of(m.id)}" for store, m in found)
    return (
        f"{ref.strip()!r} names memory {memory_id}, and both stores hold one with that id "
        f"({files}), so no id reaches either; give one of them another id: rename its file "
        "to 8 new hex digits (and its `id:` line, if it has one, to the same)"
    )
