"""Another process holding a store (a ``tether reindex`` or an import holds its writers' lock; a
genome refresh or an indexer thread, its index's write lock), as the CLI and the MCP server meet
it: a write waits for it a bounded time, saying so, then fails naming the store.

The language server waits the same way, on its loop (:mod:`lsp_server.store_busy`); reads
everywhere go on from the index as last committed once the store's :attr:`wait` has passed
(:meth:`recall.store.opening.IndexOpening._busy_copy`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final

from recall.errors import StoreBusy
from recall.index.db import BUSY_TIMEOUT_MS, write_locked
from recall.writer_lock import writer_lock_held

if TYPE_CHECKING:
    from recall.store.base import StoreBase

READ_WAIT_SECONDS: Final = 1.0
"""How long a read of the CLI or the MCP server waits for another process holding a store
before it answers from the index as last committed, saying so: as long as the hooks wait
(``recall.hooks.events.GUARD_BUSY_MS``) and the language server (its ``STORE_WAIT_SECONDS``)."""

WRITE_WAIT_SECONDS: Final = BUSY_TIMEOUT_MS / 1000
"""How long a write waits for another process to let the store go: as long as any Tether write
waits for a busy index, which rides out an ordinary import (the language server's
``WRITE_WAIT_SECONDS`` is this one); past it the person is told to retry."""

WRITE_WAIT_MAX_SECONDS: Final = 3600.0
"""The longest write wait a person may ask for (``tether --wait``): past an hour, a store held
by another process is stuck, not busy, and a command waiting on it looks hung."""

OWN_WAITS: Final = frozenset({"lsp", "mcp", "hook", "warm"})
"""The commands that serve others (an editor, an agent, its hooks) and keep the waits those
are built for (a second for a read, 15 s for a write): ``--wait`` is refused for them rather
than taken and not used, and left out of their ``--help``."""

SAY_AFTER_SECONDS: Final = 1.0
"""How long a write waits before it says what it waits for: an ordinary writer holds a store
for milliseconds, so a wait this long is another process's long job."""

CHECK_SECONDS: Final = 0.05
"""How often a waiting write looks at the locks again (one non-blocking try each)."""

RETRY: Final = "retry when the other Tether process has finished"


def held_elsewhere(store: StoreBase) -> bool:
    """Whether another holder has ``store``'s writers' lock, or its index's write lock, now;
    never waits."""
    location = store.location
    return writer_lock_held(location.lock_path) or write_locked(location.index_path)


def busy_message(stores: Iterable[StoreBase], *, waited: float | None = None) -> str:
    """What a write that could not wait any longer says: which store, for how long it waited
    (``waited`` seconds when the caller knows, else a write's whole wait), and to retry."""
    named = " and ".join(f"the {s.scope} store {s.location.base}" for s in stores)
    held = held_for(WRITE_WAIT_SECONDS if waited is None else waited)
    return (
        f"{named or 'the store'} is busy with another writer (a reindex, an import or the "
        f"code map's indexing, most likely){held}; nothing was written; {RETRY}"
    )


def held_for(seconds: float) -> str:
    """`` for over N s`` for a wait of ``seconds`` (to a tenth, rounded down), or nothing
    when there was no wait to speak of (``tether --wait 0``)."""
    tenths = math.floor(max(seconds, 0.0) * 10) / 10
    return f" for over {tenths:g} s" if tenths else ""


def wait_until_free(
    held: Callable[[], list[StoreBase]],
    say: Callable[[str], None],
    *,
    wait: float = WRITE_WAIT_SECONDS,
    say_after: float = SAY_AFTER_SECONDS,
) -> None:
    """Return once ``held()`` (the stores another process holds now) is empty, saying once on
    ``say`` what is waited for when that passes ``say_after`` seconds; past ``wait`` seconds,
    :class:`StoreBusy` naming the busy stores (nothing was written)."""
    start = time.monotonic()
    said = False
    while busy := held():
        waited = time.monotonic() - start
        if waited >= wait:
            raise StoreBusy(busy_message(busy))
        if not said and waited >= say_after:
            said = True
            stores = " and ".join(f"{s.scope} store {s.location.base}" for s in busy)
            say(f"waiting for another Tether process (holding the {stores}) to finish")
        time.sleep(CHECK_SECONDS)
