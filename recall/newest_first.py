"""The order every listing of memories is given in: newest first, over one store or several.

A listing over both stores (``--scope all``) is one listing in this order, cut to its limit
only after the stores' memories are merged: each store's own list put after the other's would
let a limit drop a newer memory of the second store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from recall.model import Memory

T = TypeVar("T")


def newest_first(items: Iterable[T], memory_of: Callable[[T], Memory]) -> list[T]:
    """``items`` (memories, or entries each holding one, given by ``memory_of``) newest
    ``created`` first, ties by id ascending, and an id both stores hold in the order given
    (the project's first): the order :meth:`recall.store.MemoryStore.list` gives one store's.
    ``created`` is kept in one UTC form whose text orders as its time does."""
    ordered = sorted(items, key=lambda item: memory_of(item).id)
    ordered.sort(key=lambda item: memory_of(item).created, reverse=True)  # stable: ids kept
    return ordered
