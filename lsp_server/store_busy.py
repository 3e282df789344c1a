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
from collections.abc import Callable
from typing import Final, TypeVar

from recall.errors import StoreBusy
from recall.store import MemoryStore
from recall.store.busy import (  # the waits and words the CLI and the MCP server use too
    CHECK_SECONDS,
    READ_WAIT_SECONDS,
    WRITE_WAIT_SECONDS,
    busy_message,
)

T = TypeVar("T")

STORE_WAIT_SECONDS: Final = READ_WAIT_SECONDS
"""How long a store of the server waits on the loop for another writer (its lock, the index)
before reading on from the index as last committed, or failing a write: as long as every
read of the CLI, the MCP server and the hooks waits."""


class StillBusy(StoreBusy):
    """A store stayed busy with another process for all of :data:`WRITE_WAIT_SECONDS`."""


class PartlyWritten(StoreBusy):
    """A store was busy after a command had already written others (a reindex of several
    roots): the message names what was written, so no "nothing was written" is added."""


async def when_free(
    held: Callable[[], list[MemoryStore]],
    write: Callable[[], T],
    cut_short: Callable[[str], None],
) -> T:
    """Run ``write`` once ``held()`` (the stores another process holds the lock of now) is
    empty, waiting for that off the loop; run it again if it still found a store busy
    (another writer took the lock first). Past :data:`WRITE_WAIT_SECONDS`:
    :class:`StillBusy` naming the busy stores. A wait cancelled (``shutdown`` came, or the
    client hung up) is said to ``cut_short``, naming the busy stores, before it ends."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while True:
        busy = held()
        if not busy:
            try:
                return write()
            except StoreBusy:
                busy = held()
        if loop.time() >= start + WRITE_WAIT_SECONDS:
            raise StillBusy(busy_message(busy)) from None
        try:
            await asyncio.sleep(CHECK_SECONDS)
        except asyncio.CancelledError:
            cut_short(busy_message(busy, waited=loop.time() - start))
            raise
