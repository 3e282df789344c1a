"""One scope's memories: the files as the truth, the index kept in step, every write atomic.

:class:`MemoryStore` is the one object callers hold; each of its parts lives in a module with
one job, each part building on the one before:

- :mod:`~recall.store.base`: location, folder, the writers' lock, path forms;
- :mod:`~recall.store.opening`: the index opened and synced, recovered when damaged, served
  read-only when it cannot be written, and the guard every write goes through;
- :mod:`~recall.store.reads`: a memory by id or prefix, lists, counts, problems;
- :mod:`~recall.store.vector_fill`: the semantic vectors a write makes;
- :mod:`~recall.store.writes`: one new memory, a front-matter rewrite;
- :mod:`~recall.store.changes`: pin, status, supersede, purge;
- :mod:`~recall.store.bulk`: many memories in one batch (imports), written by
  :mod:`~recall.store.batch` a chunk at a time;
- :mod:`~recall.store.rebuild`: the index rebuilt from the files;
- :mod:`~recall.store.results`: what a write reports back.
"""

from __future__ import annotations

from recall.store.base import Notice
from recall.store.bulk import BulkImport
from recall.store.changes import StatusChanges
from recall.store.opening import is_corruption, recovering
from recall.store.rebuild import Reindexing

__all__ = [
    "MemoryStore",
    "Notice",
    "Problem",
    "WriteResult",
    "is_corruption",
    "not_on_it_note",
    "recovering",
]

_RESULTS = ("Problem", "WriteResult", "not_on_it_note")
"""What a write or a report of problems gives back: loaded when first asked for, as a read
(every agent hook) makes none of them."""


def __getattr__(name: str) -> object:
    """The names of :mod:`recall.store.results`, imported on first use."""
    if name in _RESULTS:
        from recall.store import results

        return getattr(results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class MemoryStore(StatusChanges, BulkImport, Reindexing):
    """The memories of one scope (project or global) and their index."""
