"""The hint policy: when a memory may be shown unasked. Shared by the language server and hooks.

A *hint* is a memory shown to someone who did not ask for it: a diagnostic on the file being
edited, a line injected into an agent's prompt. A *session* is one server lifetime or one agent
session id; a *turn* is one prompt (hooks) or one save of a touched file (editor). The rules, in
the order :func:`choose` applies them:

1. Once the agent or user has run a memory command of their own in a session (recall, show,
   search, list, remember), proactive hints stop for the rest of that session: someone already
   reading memory on their own does not need to be nudged.
2. A memory hinted in turn ``t`` stays visible for the rest of turn ``t`` (a diagnostic is
   re-published on every change; that is the same hint, not a new one), then is quiet for
   :data:`QUIET_TURNS` turns and may come back in turn ``t + QUIET_TURNS + 1``.
3. A hint acknowledged in its turn (marked followed) is not shown again in that turn.
4. Each session has a budget of :data:`SESSION_BUDGET` hints. Pinned memories pierce it: they
   are shown when the budget is spent and do not spend it.

:func:`choose` is pure. :class:`HintLedger` keeps the state of each session in the project index,
so the CLI hooks and the server read and write the same state: turns are the ``sessions``
table's (:mod:`recall.policy.sessions`, which ``--session`` counts too), the rest is in a table
created here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, cast

from recall.clock import now_iso
from recall.index.schema import HINTS_DDL
from recall.policy import held_notes
from recall.policy.sessions import add_turns, count_turn

QUIET_TURNS: Final = 10
"""Turns a hinted memory stays quiet (the seed's number): long enough that the same warning is
not repeated while the agent is still working on what it was warned about, short enough that it
comes back in a later, different task of the same session."""

SESSION_BUDGET: Final = 15
"""Hints per session, pinned ones not counted: five turns' worth of full injections (three each).
Past that, memory would be the loudest thing in the room; the agent can still ask."""

SELF_SERVE_COMMANDS: Final = frozenset(
    {"recall", "show", "search", "list", "remember", "browse", "pending"}
)
"""Memory commands that mean "reading or writing memory on one's own initiative". Pin, unpin,
supersede, archive, restore and mark-followed are reactions to what was shown, so they do not
end the hints; neither does any command run from a hint itself (a quick fix on a diagnostic)."""

DDL: Final = HINTS_DDL
"""The hint tables, created here on first use (defined with the index schema, from which a
rebuild creates them too)."""


@dataclass(frozen=True)
class Policy:
    """The numbers of the policy (each configurable; the defaults are the constants above)."""

    quiet_turns: int = QUIET_TURNS
    budget: int = SESSION_BUDGET


@dataclass(frozen=True)
class Mark:
    """The last time a memory was hinted in a session, and whether that hint was acknowledged."""

    turn: int
    dismissed: bool = False


@dataclass(frozen=True)
class SessionState:
    """What the policy needs to know about one session."""

    turn: int = 0
    spent: int = 0
    self_serve: bool = False
    marks: Mapping[str, Mark] = field(default_factory=dict)


@dataclass(frozen=True)
class Candidate:
    """A memory that could be hinted now, in rank order with the others."""

    memory_id: str
    pinned: bool = False


@dataclass(frozen=True)
class Choice:
    """The outcome of one decision."""

    shown: tuple[str, ...]
    """Ids to show now, in candidate order."""
    new: tuple[str, ...]
    """The shown ids hinted for the first time this turn: the surfacings to count."""
    spent: int
    """The session's budget spent after this choice."""


def is_self_serve(command: str, *, from_hint: bool = False) -> bool:
    """Whether running ``command`` ends proactive hints for the session (see rule 1)."""
    return not from_hint and command in SELF_SERVE_COMMANDS


def choose(
    state: SessionState, candidates: Sequence[Candidate], policy: Policy = Policy()
) -> Choice:
    """Decide which candidates may be shown in the session's current turn (rules 1-4)."""
    if state.self_serve:
        return Choice((), (), state.spent)
    shown: list[str] = []
    new: list[str] = []
    spent = state.spent
    for candidate in candidates:
        mark = state.marks.get(candidate.memory_id)
        if mark is not None:
            if mark.turn == state.turn:
                if not mark.dismissed:
                    shown.append(candidate.memory_id)
                continue
            if state.turn - mark.turn <= policy.quiet_turns:
                continue
        if not candidate.pinned:
            if spent >= policy.budget:
                continue
            spent += 1
        shown.append(candidate.memory_id)
        new.append(candidate.memory_id)
    return Choice(tuple(shown), tuple(new), spent)


def ensure_tables(conn: sqlite3.Connection) -> None:
    """Create the hint table in an index if it is missing (the index has ``sessions``)."""
    conn.executescript(DDL)


def _on_disk(conn: sqlite3.Connection) -> bool:
    """Whether ``conn`` writes the index on disk, not an in-memory copy of it (served while
    another connection holds the index, and gone when it closes)."""
    return bool(conn.execute("PRAGMA database_list").fetchone()[2])


class HintLedger:
    """The persisted state of one session, read and written through an index connection.

    The connection is passed to each call rather than kept, because a store may swap its
    connection (an in-memory index is replaced by the real one on the first write).
    """

    def __init__(
        self,
        session: str,
        *,
        origin: str = "",
        policy: Policy = Policy(),
        held_in: Path | None = None,
    ) -> None:
        """``held_in``: the folder where a process that cannot wait for the index keeps the
        session's own memory command (:mod:`recall.policy.held_notes`); read and given back
        here, None where nothing is ever kept (the language server keeps its notes itself)."""
        self.session = session
        self.origin = origin
        self.policy = policy
        self.held_in = held_in
        self._ready: list[sqlite3.Connection] = []  # held, so no other connection reuses an id

    def _prepare(self, conn: sqlite3.Connection) -> None:
        if any(known is conn for known in self._ready):
            return
        ensure_tables(conn)
        moment = now_iso()
        conn.execute(
            "INSERT OR IGNORE INTO hint_sessions(session, origin, started, last_seen) "
            "VALUES(?, ?, ?, ?)",
            (self.session, self.origin, moment, moment),
        )
        if self._held() and _on_disk(conn):  # kept while the index was held: written now
            conn.execute(
                "UPDATE hint_sessions SET self_serve = 1 WHERE session = ?", (self.session,)
            )
            held_notes.given_back(cast(Path, self.held_in), self.session)
        self._ready.append(conn)

    def _held(self) -> bool:
        """Whether the session's own memory command is kept outside the index."""
        return self.held_in is not None and held_notes.is_kept(self.held_in, self.session)

    def keep_self_serve(self) -> None:
        """Keep the session's own memory command outside the index, for an index held by
        another connection: read as written by every later decision, written in the index
        by the next one that gets it. Raises :class:`OSError` when it cannot be kept."""
        if self.held_in is None:
            raise OSError(f"no folder to keep session {self.session}'s note in")
        held_notes.keep(self.held_in, self.session)

    def state(
        self, conn: sqlite3.Connection, memory_ids: Iterable[str] | None = None
    ) -> SessionState:
        """The session's state; marks only for ``memory_ids`` when given (all otherwise)."""
        self._prepare(conn)
        return self._read(conn, memory_ids)

    def preview(self, conn: sqlite3.Connection, candidates: Sequence[Candidate]) -> Choice:
        """What :meth:`select` would choose now, read only and recorded nowhere: the answer
        for an index another process is writing."""
        return choose(self.peek(conn, [c.memory_id for c in candidates]), candidates, self.policy)

    def peek(self, conn: sqlite3.Connection, memory_ids: Iterable[str]) -> SessionState:
        """The session's state with the marks of ``memory_ids``, read only (nothing created or
        written): what to choose from while another connection holds the index."""
        try:
            return self._read(conn, memory_ids)
        except sqlite3.OperationalError:  # no hint table yet: a session with nothing shown
            return SessionState(self_serve=self._held())

    def record(
        self,
        conn: sqlite3.Connection,
        marks: Mapping[str, Mark],
        spent: int,
        *,
        turns: int = 0,
        self_serve: bool = False,
    ) -> None:
        """Record in one transaction what was decided earlier from :meth:`peek` (the index
        was held then): ``turns`` more turns, each memory of ``marks`` hinted (or its hint
        acknowledged) in the turn its mark names, the budget spent at least ``spent``, and
        the session's own memory command when ``self_serve``."""
        self._prepare(conn)
        self._write(
            conn,
            "UPDATE hint_sessions SET spent = MAX(spent, ?), self_serve = MAX(self_serve, ?), "
            "last_seen = ? WHERE session = ?",
            (spent, int(self_serve), now_iso(), self.session),
            [(self.session, m, mark.turn, int(mark.dismissed)) for m, mark in marks.items()],
            turns=turns,
        )

    def _read(self, conn: sqlite3.Connection, memory_ids: Iterable[str] | None) -> SessionState:
        row = conn.execute(
            "SELECT spent, self_serve FROM hint_sessions WHERE session = ?", (self.session,)
        ).fetchone()
        turns = conn.execute("SELECT turns FROM sessions WHERE id = ?", (self.session,)).fetchone()
        if memory_ids is None:
            found = conn.execute(
                "SELECT memory_id, turn, dismissed FROM hint_marks WHERE session = ?",
                (self.session,),
            ).fetchall()
        else:
            ids = list(memory_ids)
            found = []
            if ids:
                marks = ",".join("?" * len(ids))
                found = conn.execute(
                    "SELECT memory_id, turn, dismissed FROM hint_marks "
                    f"WHERE session = ? AND memory_id IN ({marks})",
                    [self.session, *ids],
                ).fetchall()
        return SessionState(
            turn=int(turns[0]) if turns else 0,
            spent=int(row[0]) if row else 0,
            self_serve=bool(row and row[1]) or self._held(),
            marks={r[0]: Mark(int(r[1]), bool(r[2])) for r in found},
        )

    def select(self, conn: sqlite3.Connection, candidates: Sequence[Candidate]) -> Choice:
        """Apply the policy to ``candidates`` now and record what was newly shown."""
        if not candidates:
            return Choice((), (), self.state(conn, ()).spent)
        state = self.state(conn, [c.memory_id for c in candidates])
        choice = choose(state, candidates, self.policy)
        if choice.new:
            self._write(
                conn,
                "UPDATE hint_sessions SET spent = ?, last_seen = ? WHERE session = ?",
                (choice.spent, now_iso(), self.session),
                [(self.session, memory_id, state.turn, 0) for memory_id in choice.new],
            )
        return choice

    def _write(
        self,
        conn: sqlite3.Connection,
        session_sql: str,
        session_args: tuple[object, ...],
        marks: list[tuple[str, str, int, int]] | None = None,
        *,
        turns: int = 0,
    ) -> None:
        """One transaction: ``turns`` more turns, the session's row, then ``marks``
        (session, memory, turn, dismissed)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            if turns:
                add_turns(conn, self.session, turns, origin=self.origin or "cli")
            conn.execute(session_sql, session_args)
            if marks:
                conn.executemany(
                    "INSERT INTO hint_marks(session, memory_id, turn, dismissed) "
                    "VALUES(?, ?, ?, ?) ON CONFLICT(session, memory_id) "
                    "DO UPDATE SET turn = excluded.turn, dismissed = excluded.dismissed",
                    marks,
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def next_turn(self, conn: sqlite3.Connection) -> int:
        """Start the session's next turn (in the ``sessions`` table) and return its number."""
        self._prepare(conn)
        return count_turn(conn, self.session, origin=self.origin or "cli")

    def mark_self_serve(self, conn: sqlite3.Connection) -> bool:
        """Record that a memory command was run on the session's own initiative (rule 1).

        Returns True when this changed the state (hints were still on).
        """
        self._prepare(conn)
        before = self.state(conn, ()).self_serve
        if not before:
            self._write(
                conn,
                "UPDATE hint_sessions SET self_serve = 1, last_seen = ? WHERE session = ?",
                (now_iso(), self.session),
            )
        return not before

    def dismiss(self, conn: sqlite3.Connection, memory_id: str) -> None:
        """Acknowledge a memory's hint: hidden for the rest of this turn, then quiet (rule 3)."""
        self._prepare(conn)
        turn = self.state(conn, ()).turn
        self._write(
            conn,
            "UPDATE hint_sessions SET last_seen = ? WHERE session = ?",
            (now_iso(), self.session),
            [(self.session, memory_id, turn, 1)],
        )
