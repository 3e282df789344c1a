"""What the hint policy chose for a publish, recorded without holding up the message loop for
another writer's job.

The choice is recorded (:meth:`recall.policy.hints.HintLedger.select`) at once when the index
is free, or an ordinary writer lets it go within :data:`lsp_server.usage_counts.COUNT_WAIT_MS`.
When another connection holds the index longer (a genome refresh, an import), or the store is
served from a copy because it was held when it opened, the choice is made from the state as
last committed plus the choices kept meanwhile, shown at once, and its record is kept and
written once the index is free, as usage counts are (:mod:`lsp_server.usage_counts`). Before,
each such publish waited the store's whole wait on the loop, and what it showed was recorded
by the first publish after the index was free.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from lsp_server.later_try import LaterTry
from lsp_server.usage_counts import COUNT_WAIT_MS, RETRY_SECONDS
from recall.index.bookkeeping import waiting_at_most
from recall.index.db import is_busy
from recall.policy.hints import Candidate, Choice, HintLedger, Mark, SessionState, choose
from recall.store import MemoryStore


class KeptHints:
    """One root's hint choices, recorded when the index holding its hint state can take them."""

    def __init__(
        self,
        ledger: HintLedger,
        stores: Callable[[], list[MemoryStore]],
        reopen_copies: Callable[[], object],
        warn: Callable[[str], None],
    ) -> None:
        """Record through ``ledger`` in the index of the first of ``stores()`` (the project's,
        else the global one: where the session's hint state lives); ``reopen_copies`` opens
        the index itself again for a store served from a copy whose index is free now;
        ``warn`` logs a record that could not be written."""
        self._ledger = ledger
        self._stores = stores
        self._reopen_copies = reopen_copies
        self._warn = warn
        self._marks: dict[str, int] = {}
        """Memories shown while the index was held, each with the turn it was shown in."""
        self._spent = 0
        self._retry = LaterTry(RETRY_SECONDS, lambda: self.flush(0))
        """One try that never waits (the index may still be held), a while after one failed."""

    def _store(self) -> MemoryStore:
        return self._stores()[0]

    @property
    def kept(self) -> int:
        """How many memories shown wait for their hint to be recorded."""
        return len(self._marks)

    def choose(self, candidates: Sequence[Candidate]) -> Choice:
        """The policy's choice among ``candidates`` now: recorded at once when the index can
        take it, else kept for later (never waiting more than ``COUNT_WAIT_MS``, and not at
        all while choices are kept already: the index was held a moment ago)."""
        store = self._store()
        conn = store.conn
        if not self._marks and not store.busy:
            try:
                with waiting_at_most(conn, COUNT_WAIT_MS):
                    return self._ledger.select(conn, candidates)
            except sqlite3.OperationalError as error:
                if not is_busy(error):
                    raise
        state = self._with_kept(self._ledger.peek(conn, [c.memory_id for c in candidates]))
        choice = choose(state, candidates, self._ledger.policy)
        for memory_id in choice.new:
            self._marks[memory_id] = state.turn
        self._spent = max(self._spent, choice.spent)
        if self._marks:
            self._retry.schedule()
        return choice

    def _with_kept(self, state: SessionState) -> SessionState:
        marks = {**state.marks, **{m: Mark(turn) for m, turn in self._marks.items()}}
        spent = max(state.spent, self._spent)
        return SessionState(state.turn, spent, state.self_serve, marks)

    def flush(self, wait_ms: int | None = 0) -> None:
        """Record the kept choices in one transaction that waits at most ``wait_ms`` for the
        index (None: the store's own wait, as at shutdown); look again in ``RETRY_SECONDS``
        while it stays busy."""
        if not self._marks:
            return
        if self._store().busy:
            self._reopen_copies()
        store = self._store()
        if not store.exists:
            self._marks.clear()  # the store is gone: there is no hint state to keep
            return
        if not store.busy:
            try:
                self._record(store, wait_ms)
                self._marks.clear()
                return
            except sqlite3.Error as error:  # a hint not recorded is not worth a failure
                if not is_busy(error):
                    self._warn(f"hint state not recorded ({error})")
                    self._marks.clear()
                    return
        if wait_ms is not None:
            self._retry.schedule()

    def _record(self, store: MemoryStore, wait_ms: int | None) -> None:
        conn = store.conn
        if wait_ms is None:
            self._ledger.record(conn, self._marks, self._spent)
            return
        with waiting_at_most(conn, wait_ms):
            self._ledger.record(conn, self._marks, self._spent)

    def close(self) -> None:
        """Record what is kept, waiting the store's own wait once for a busy index, and stop
        looking again."""
        self._retry.cancel()
        self.flush(None)
        if self._marks:
            self._warn(f"hint state not recorded for {len(self._marks)} memories shown")
            self._marks.clear()
