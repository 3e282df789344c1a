"""The counts the server keeps of how memories are used (shown in a diagnostic, a card
hovered, an action taken), without holding up the message loop for another writer's job.

A count is written at once when the index is free or an ordinary writer lets it go within
:data:`COUNT_WAIT_MS`. When another connection holds the index's write lock longer (a genome
refresh, an import), or the store is served from a copy because it was held when it opened,
the count is kept with the moment it happened and written once the index is free again (each
store's kept counts in one transaction): before, a hover then waited the store's whole wait
(:data:`lsp_server.store_busy.STORE_WAIT_SECONDS`) and the count was lost anyway. What the hint
policy chose for a publish is kept the same way (:mod:`lsp_server.hint_state`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from lsp_server.later_try import LaterTry
from recall.clock import now_iso
from recall.index.bookkeeping import Outcome, bookkeeping, waiting_at_most
from recall.policy.usage import record_action, record_surfacings
from recall.store import MemoryStore

if TYPE_CHECKING:
    from lsp_server.roots import Root
    from recall.ranking.engine import Hit

COUNT_WAIT_MS: Final = 100
"""How long a count waits for another connection holding the index before it is kept for
later: an ordinary writer (a hook's bookkeeping, a save) holds it for milliseconds and is
waited out; a long job (an import, a genome refresh) never holds up a hover."""

RETRY_SECONDS: Final = 1.0
"""How often kept counts are tried again while their index stays busy: as often as the hooks
and the server look at a busy store (``lsp_server.store_busy.STORE_WAIT_SECONDS``); one try is
a single lock attempt that never waits, and a count made meanwhile waits for it."""

KEPT_MAX: Final = 10_000
"""Counts kept at most for indexes that stay busy (a process stuck holding one for hours must
not grow the server without bound); past it the oldest are let go, said in the log once."""


@dataclass(frozen=True)
class Count:
    """One count to write: the memories of one store's scope, shown or acted on, and when."""

    scope: str
    ids: tuple[str, ...]
    acted: bool
    when: str


class UsageCounts:
    """The counts of one root, written when its index can take them."""

    def __init__(
        self,
        store_of_scope: Callable[[str], MemoryStore | None],
        reopen_copies: Callable[[], object],
        warn: Callable[[str], None],
    ) -> None:
        """Count into the store ``store_of_scope`` gives for a scope; ``reopen_copies`` opens
        the index itself again for each store served from a copy whose index is free now;
        ``warn`` logs a count that could not be written at all."""
        self._store_of_scope = store_of_scope
        self._reopen_copies = reopen_copies
        self._warn = warn
        self._kept: list[Count] = []
        self._retry = LaterTry(RETRY_SECONDS, lambda: self.flush(0))
        """One try that never waits (the index may still be held), a while after one failed."""
        self._told_full = False

    @property
    def kept(self) -> int:
        """How many counts wait for their index to be free."""
        return len(self._kept)

    def surfaced(self, store: MemoryStore, ids: list[str]) -> None:
        """Count that each of ``ids`` (memories of ``store``) was shown once."""
        if ids:
            self._add(Count(store.scope, tuple(ids), acted=False, when=now_iso()))

    def acted(self, store: MemoryStore, memory_id: str) -> None:
        """Count one action on the memory ``memory_id`` of ``store``."""
        self._add(Count(store.scope, (memory_id,), acted=True, when=now_iso()))

    def _add(self, count: Count) -> None:
        self._kept.append(count)
        if len(self._kept) > KEPT_MAX:
            del self._kept[: len(self._kept) - KEPT_MAX]
            if not self._told_full:
                self._told_full = True
                self._warn(
                    f"usage counts: more than {KEPT_MAX} wait for a busy index; the oldest "
                    "are let go"
                )
        if not self._retry.pending:  # else an index was busy a moment ago: the retry writes it
            self.flush(COUNT_WAIT_MS)

    def flush(self, wait_ms: int | None = 0) -> None:
        """Write the kept counts, each store's in one transaction that waits at most
        ``wait_ms`` for its index (None: the store's own wait, as at shutdown); look again in
        :data:`RETRY_SECONDS` for the counts of a busy store."""
        if any(self._from_copy(count.scope) for count in self._kept):
            self._reopen_copies()
        by_scope: dict[str, list[Count]] = {}
        for count in self._kept:
            by_scope.setdefault(count.scope, []).append(count)
        left: list[Count] = []
        for scope, counts in by_scope.items():
            store = self._store_of_scope(scope)
            if store is None or not store.exists:
                continue  # the store is gone: there is nothing to count in
            if store.busy or not self._write(store, counts, wait_ms):
                left += counts
        kept = {id(count) for count in left}
        self._kept = [count for count in self._kept if id(count) in kept]  # in their order
        if left and wait_ms is not None:
            self._retry.schedule()

    def _from_copy(self, scope: str) -> bool:
        store = self._store_of_scope(scope)
        return store is not None and store.busy

    def _write(self, store: MemoryStore, counts: list[Count], wait_ms: int | None) -> bool:
        """Write ``counts`` in one transaction; False when the index was busy (kept)."""
        conn = store.conn
        try:
            waited = contextlib.nullcontext() if wait_ms is None else waiting_at_most(conn, wait_ms)
            with waited, bookkeeping(conn) as (target, outcome):
                for count in counts:
                    self._record(target, count)
            return not outcome.busy
        except sqlite3.Error as error:  # a count missed is not worth a failed request
            self._warn(f"usage not counted ({error})")
            return True

    @staticmethod
    def _record(conn: sqlite3.Connection, count: Count) -> Outcome:
        if count.acted:
            return record_action(conn, count.ids[0], when=count.when)
        return record_surfacings(conn, list(count.ids), when=count.when)

    def close(self) -> None:
        """Write what is kept, waiting each store's own wait once for a busy index, and stop
        looking again."""
        self._retry.cancel()
        if self._kept:
            self.flush(None)
        if self._kept:
            self._warn(f"usage not counted: {len(self._kept)} counts, the index stayed busy")
            self._kept = []


def count_surfacings(root: Root, ranked: list[Hit], new: set[str]) -> None:
    """Count the memories of ``ranked`` newly shown (``new``) in their stores."""
    for store in root.stores():
        ids = [h.memory.id for h in ranked if h.memory.id in new and h.scope == store.scope]
        if ids and store.exists:
            root.usage.surfaced(store, ids)
