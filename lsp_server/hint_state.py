"""The session's hint state (what the hint policy chose for a publish, the turns that saves
end, a hint acknowledged, a memory command asked for unprompted), recorded without holding up
the message loop for another writer's job.

Each is recorded (:class:`recall.policy.hints.HintLedger`) at once when the index is free, or
an ordinary writer lets it go within :data:`lsp_server.usage_counts.COUNT_WAIT_MS`. When another
connection holds the index longer (a genome refresh, an import), or the store is served from a
copy because it was held when it opened, it is kept, and written once the index is free, as
usage counts are (:mod:`lsp_server.usage_counts`); meanwhile every choice is made from the
state as last committed plus what is kept, so what is shown follows it at once. Before, a
publish waited the store's whole wait on the loop; a save that ended a turn, a memory command
asked for or a hint marked followed waited the index's own wait and then failed (the command
with an internal error, the turn lost).
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
    """One root's hint state, recorded when the index holding it can take it."""

    def __init__(
        self,
        ledger: HintLedger,
        stores: Callable[[], list[MemoryStore]],
        reopen_copies: Callable[[], object],
        warn: Callable[[str], None],
    ) -> None:
        """Record through ``ledger`` in the index of the first of ``stores()`` (the project's,
        else the global one: where the session's hint state lives; session ids are unique, so
        sharing the global one between repositories is safe); ``reopen_copies`` opens
        the index itself again for a store served from a copy whose index is free now;
        ``warn`` logs a record that could not be written."""
        self._ledger = ledger
        self._stores = stores
        self._reopen_copies = reopen_copies
        self._warn = warn
        self._marks: dict[str, Mark] = {}
        """Memories shown (or their hints acknowledged) while the index was held."""
        self._spent = 0
        self._turns = 0
        """Turns ended while the index was held."""
        self._self_serve = False
        """Whether a memory command was asked for while the index was held."""
        self._retry = LaterTry(RETRY_SECONDS, lambda: self.flush(0))
        """One try that never waits (the index may still be held), a while after one failed."""

    def _store(self) -> MemoryStore:
        return self._stores()[0]

    @property
    def kept(self) -> int:
        """How many changes wait to be recorded (memories shown or acknowledged, turns ended,
        a memory command asked for)."""
        return len(self._marks) + self._turns + int(self._self_serve)

    def state(self) -> SessionState:
        """The session's turn, budget spent and self-serve now, kept changes included, read
        only (of the marks, only the kept ones)."""
        return self._with_kept(self._ledger.peek(self._store().conn, ()))

    def choose(self, candidates: Sequence[Candidate]) -> Choice:
        """The policy's choice among ``candidates`` now: recorded at once when the index can
        take it, else kept for later (never waiting more than ``COUNT_WAIT_MS``, and not at
        all while changes are kept already: the index was held a moment ago)."""
        store = self._store()
        conn = store.conn
        if not self.kept and not store.busy:
            try:
                with waiting_at_most(conn, COUNT_WAIT_MS):
                    return self._ledger.select(conn, candidates)
            except sqlite3.OperationalError as error:
                if not is_busy(error):
                    raise
        state = self._with_kept(self._ledger.peek(conn, [c.memory_id for c in candidates]))
        choice = choose(state, candidates, self._ledger.policy)
        for memory_id in choice.new:
            self._marks[memory_id] = Mark(state.turn)
        self._spent = max(self._spent, choice.spent)
        if self.kept:
            self._retry.schedule()
        return choice

    def mark_self_serve(self) -> bool:
        """Note that a memory command was run on the session's own initiative (hint rule 1);
        True when this turned the hints off (they were on)."""
        if self.state().self_serve:
            return False
        self._self_serve = True
        self._record_soon()
        return True

    def next_turn(self) -> None:
        """Start the session's next turn."""
        self._turns += 1
        self._record_soon()

    def dismiss(self, memory_id: str) -> None:
        """Acknowledge a memory's hint: hidden for the rest of this turn (hint rule 3)."""
        self._marks[memory_id] = Mark(self.state().turn, dismissed=True)
        self._record_soon()

    def _record_soon(self) -> None:
        if not self._retry.pending:  # else the index was busy a moment ago: the retry writes it
            self._try(COUNT_WAIT_MS)

    def _with_kept(self, state: SessionState) -> SessionState:
        return SessionState(
            state.turn + self._turns,
            max(state.spent, self._spent),
            state.self_serve or self._self_serve,
            {**state.marks, **self._marks},
        )

    def _forget(self) -> None:
        self._marks.clear()
        self._spent = self._turns = 0
        self._self_serve = False

    def flush(self, wait_ms: int | None = 0) -> None:
        """Record the kept changes in one transaction that waits at most ``wait_ms`` for the
        index (None: the store's own wait, as at shutdown); look again in ``RETRY_SECONDS``
        while it stays busy."""
        if not self.kept:
            return
        if self._store().busy:
            self._reopen_copies()
        store = self._store()
        if not store.exists:
            self._forget()  # the store is gone: there is no hint state to keep
            return
        self._try(wait_ms)

    def _try(self, wait_ms: int | None) -> None:
        """Record the kept changes now, unless the index is held (then look again in
        ``RETRY_SECONDS``, when ``wait_ms`` is not None)."""
        store = self._store()
        if not store.busy:
            try:
                self._record(store, wait_ms)
                self._forget()
                return
            except sqlite3.Error as error:  # a hint not recorded is not worth a failure
                if not is_busy(error):
                    self._warn(f"hint state not recorded ({error})")
                    self._forget()
                    return
        if wait_ms is not None:
            self._retry.schedule()

    def _record(self, store: MemoryStore, wait_ms: int | None) -> None:
        conn = store.conn
        if wait_ms is None:
            self._write(conn)
            return
        with waiting_at_most(conn, wait_ms):
            self._write(conn)

    def _write(self, conn: sqlite3.Connection) -> None:
        self._ledger.record(
            conn, self._marks, self._spent, turns=self._turns, self_serve=self._self_serve
        )

    def close(self) -> None:
        """Record what is kept, waiting the store's own wait once for a busy index, and stop
        looking again."""
        self._retry.cancel()
        self.flush(None)
        if self.kept:
            self._warn(f"hint state not recorded for {self.kept} changes of the session")
            self._forget()
