"""Another Tether process holding a store's writers' lock (``tether reindex``, an import), or
another connection holding its index's write lock (a genome refresh, the indexer thread): the
server never waits for it on its message loop.

Reads go on from the index as it was last committed: a memory folder that changed meanwhile
is synced once the lock is free, and a store that had to be served from a copy (the lock was
held when it opened) is opened again then. A command that writes waits for the lock off the
loop, answering everything else meanwhile, and past :data:`WRITE_WAIT_SECONDS` fails saying
which store is busy and to retry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Final, TypeVar

from recall.errors import StoreBusy
from recall.index.db import BUSY_TIMEOUT_MS, write_locked
from recall.memfiles import writer_lock_held
from recall.store import MemoryStore

T = TypeVar("T")

STORE_WAIT_SECONDS: Final = 1.0
"""How long a store of the server waits on the loop for another writer (its lock, the index)
before reading on from the index as last committed, or failing a write: an ordinary writer
holds the store for milliseconds, a job that holds it longer is never waited out on the loop,
and the hooks wait as long (``recall.hooks.events.GUARD_BUSY_MS``)."""

WRITE_WAIT_SECONDS: Final = BUSY_TIMEOUT_MS / 1000
"""How long a command's write waits, off the loop, for another process to let the store go:
as long as any Tether write waits for a busy index (``recall.index.db.BUSY_TIMEOUT_MS``), which
rides out an ordinary import; past it the person is told to retry rather than left waiting."""

CHECK_SECONDS: Final = 0.05
"""How often a waiting write looks at the lock again: a write follows the holder within a
blink of an eye, and one look is a single non-blocking try."""


RETRY: Final = "retry when the other Tether process has finished"


class StillBusy(StoreBusy):
    """A store stayed busy with another process for all of :data:`WRITE_WAIT_SECONDS`."""


class PartlyWritten(StoreBusy):
    """A store was busy after a command had already written others (a reindex of several
    roots): the message names what was written, so no "nothing was written" is added."""


def held_elsewhere(store: MemoryStore) -> bool:
    """Whether another holder has ``store``'s writers' lock, or its index's write lock (a
    genome refresh, the server's own indexer thread), now; never waits."""
    location = store.location
    return writer_lock_held(location.lock_path) or write_locked(location.index_path)


def busy_message(stores: Iterable[MemoryStore]) -> str:
    """What a write that could not wait any longer says: which store, and to retry."""
    named = " and ".join(f"the {s.scope} store {s.location.base}" for s in stores)
    return (
        f"{named or 'the store'} is busy with another writer (a reindex, an import or the "
        f"code map's indexing, most likely) for over {WRITE_WAIT_SECONDS:g} s; nothing was "
        f"written; {RETRY}"
    )


async def when_free(held: Callable[[], list[MemoryStore]], write: Callable[[], T]) -> T:
    """Run ``write`` once ``held()`` (the stores another process holds the lock of now) is
    empty, waiting for that off the loop; run it again if it still found a store busy
    (another writer took the lock first). Past :data:`WRITE_WAIT_SECONDS`:
    :class:`StillBusy` naming the busy stores."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WRITE_WAIT_SECONDS
    while True:
        busy = held()
        if not busy:
            try:
                return write()
            except StoreBusy:
                busy = held()
        if loop.time() >= deadline:
            raise StillBusy(busy_message(busy)) from None
        await asyncio.sleep(CHECK_SECONDS)
