"""Cleanup: stale memories ranked worst first, when to suggest a pass, and a person's decisions.

A *stale candidate* is an active, unpinned memory that nobody vouched for lately and that is
dead (every file gone), due a spot-check, ignored (shown 4+ times, never acted on) or idle
(neither acted on nor shown for half a year): see :func:`recall.lifecycle.stale_reasons`.
Memories already archived by disuse are not candidates; ``tether list --status archived``
shows them. The last cleanup pass is recorded in the index (table ``lifecycle``) of the store
that records sessions, so "sessions since the last pass" can be counted.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Final

from recall.agent_text import for_agent, marked
from recall.anchors.defined_names import genome_names
from recall.anchors.states import moved_anchors
from recall.anchors.tree_reads import tree_reads
from recall.clock import format_timestamp, now
from recall.errors import BadInput
from recall.lifecycle import (
    UsageFacts,
    cleanup_due,
    days_between,
    may_be_stale,
    offender_score,
    stale_reasons,
)
from recall.lifecycle.confirming import confirm
from recall.lifecycle.dead import dead_reference
from recall.lifecycle.disuse import archived_by_disuse, stamp, vouched_for
from recall.lifecycle.references import CONFIRMED_KEY, baseline, drift, with_lifecycle_keys
from recall.model import Memory
from recall.settings import EngineSettings
from recall.store import MemoryStore
from recall.store.changes import refuse_deleted, refuse_pending

LAST_PASS_KEY: Final = "last_cleanup"

DECISIONS: Final = ("archive", "delete", "confirm", "keep")
"""What a person may decide for a candidate:

- ``archive``: out of recall for everyone (``status: archived`` in the file; ``tether restore``);
- ``delete``: tombstoned (``status: deleted``; restorable until ``tether purge``);
- ``confirm``: still true: the file records when (clearing a spot-check), and it counts as an
  action, so it is no longer ignored or idle;
- ``keep``: still useful, file untouched: counts as an action.
"""

GenomeFor = Callable[[MemoryStore], Any | None]

DRIFT_BATCH: Final = 2000
"""Memories whose drift is asked of the genome together: a few statements per batch rather
than one per memory and file, and only one batch's (file, date) pairs held at a time."""


@dataclass(frozen=True)
class Candidate:
    """A stale memory, its offender score and why it is listed."""

    memory: Memory
    scope: str
    score: float
    reasons: tuple[str, ...]
    surfaced: int
    acted: int
    idle_days: float | None
    symbols: tuple[str, ...] = ()
    """Its symbol anchors that moved, changed or went, one line each (for the review)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, for agents and scripts (``cleanup --json``, ``session start
        --json``): a credential in the summary masked, with ``secret_masked``
        (:mod:`recall.agent_text`)."""
        shown = for_agent(self.memory)
        data = {
            "id": shown.id,
            "scope": self.scope,
            "score": round(self.score, 4),
            "reasons": list(self.reasons),
            "category": shown.category,
            "summary": shown.summary,
            "files": list(shown.files),
            "surfaced": self.surfaced,
            "acted": self.acted,
            "idle_days": None if self.idle_days is None else round(self.idle_days, 1),
            "symbols": list(self.symbols),
        }
        return marked(data, shown)


def _facts(memory: Memory, row: sqlite3.Row | None) -> UsageFacts:
    """What the usage row and the memory say of it. The recency anchor is the latest of its
    last action, its creation and its ``confirmed`` time (when ``memory`` was read with
    :func:`with_lifecycle_keys`): a teammate's confirm is in the file, not in this index."""
    times = [
        stamp(row["last_acted"]) if row is not None else None,
        stamp(memory.created),
        stamp(baseline(memory)) if CONFIRMED_KEY in memory.extra else None,
    ]
    known = [when for when in times if when is not None]
    return UsageFacts(
        surfaced=int(row["surfaced"]) if row is not None else 0,
        acted=int(row["acted"]) if row is not None else 0,
        first_surfaced=stamp(row["first_surfaced"]) if row is not None else None,
        last_surfaced=stamp(row["last_surfaced"]) if row is not None else None,
        anchor=max(known) if known else None,
        pinned=memory.pinned,
    )


def candidates(
    store: MemoryStore, genome: Any | None, moment: datetime | None = None
) -> list[Candidate]:
    """The store's stale candidates, worst first (ties by id). Pinned ones are never listed.

    ``genome`` (the project's, or None) is what tells dead references and drift; without it only
    the usage-based reasons apply.
    """
    if not store.exists:
        return []
    at = moment or now()
    conn = store.conn
    usage = {row["memory_id"]: row for row in conn.execute("SELECT * FROM usage")}
    hidden = archived_by_disuse(conn)
    found: list[Candidate] = []
    judged: list[tuple[Memory, UsageFacts, bool, Memory | None]] = []
    for memory in store.list(status="active"):
        if memory.pinned or memory.id in hidden:
            continue
        facts = _facts(memory, usage.get(memory.id))
        if not may_be_stale(facts, at):  # decided before any file is read
            continue
        # only the memories the index leaves possibly stale have their file read, for a
        # ``confirmed`` time (a teammate's confirm) that may make them recent again
        read = with_lifecycle_keys(store, memory)
        facts = _facts(read, usage.get(memory.id))
        if not may_be_stale(facts, at):  # decided before the repository is asked anything
            continue
        dead = genome is not None and dead_reference(memory, genome) is not None
        keyed = read if genome is not None and not dead else None
        judged.append((memory, facts, dead, keyed))
    for start in range(0, len(judged), DRIFT_BATCH):
        batch = judged[start : start + DRIFT_BATCH]
        found.extend(_judge(store, genome, at, batch))
    found.sort(key=lambda c: (-c.score, c.memory.id))
    return _with_symbols(found, genome)


def _judge(
    store: MemoryStore,
    genome: Any | None,
    at: datetime,
    batch: Sequence[tuple[Memory, UsageFacts, bool, Memory | None]],
) -> list[Candidate]:
    """The stale candidates among one batch of memories that may be stale."""
    found: list[Candidate] = []
    counted = _commit_counts(genome, [keyed for *_, keyed in batch if keyed is not None])
    for memory, facts, dead, keyed in batch:
        drifting = keyed is not None and drift(keyed, genome, counted=counted) is not None
        reasons = stale_reasons(facts, at, dead=dead, drifting=drifting)
        if not reasons:
            continue
        idle = days_between(facts.anchor, at)
        found.append(
            Candidate(
                memory,
                store.scope,
                offender_score(facts, at, dead=dead, drifting=drifting),
                tuple(reasons),
                facts.surfaced,
                facts.acted,
                None if math.isnan(idle) else idle,
            )
        )
    return found


def _with_symbols(found: list[Candidate], genome: Any | None) -> list[Candidate]:
    """``found`` with the anchors of each that moved, changed or went said in ``symbols``,
    each anchored file read once for them all: from the working tree where it holds the file
    otherwise than the symbol index read it (a function renamed and not committed yet), as
    ``tether show`` and ``tether check`` read it."""
    anchors = [anchor for candidate in found for anchor in candidate.memory.anchors]
    if not anchors:
        return found
    names = genome_names(genome)  # each file's names read once, for gone anchors only
    tree = tree_reads(genome, anchors)

    def said(candidate: Candidate) -> Candidate:
        states = moved_anchors(candidate.memory, genome, names, tree)
        return replace(candidate, symbols=tuple(state.describe() for state in states))

    return [said(candidate) for candidate in found]


def _commit_counts(
    genome: Any | None, memories: Sequence[Memory]
) -> dict[tuple[str, str], int] | None:
    """The commits touching each file of ``memories`` since its baseline, asked of the genome
    all at once (a few statements, not one per file and memory); None when it cannot."""
    many = getattr(genome, "commits_touching_many", None)
    if many is None or not memories:
        return None
    pairs = [(path, since) for m in memories if (since := baseline(m)) for path in m.files]
    return many(pairs)


def ranked(stores: Sequence[MemoryStore], genome_for: GenomeFor) -> list[Candidate]:
    """Candidates of every store, worst first (project before global on equal scores)."""
    moment = now()
    found: list[Candidate] = []
    for store in stores:
        found.extend(candidates(store, genome_for(store), moment))
    found.sort(key=lambda c: -c.score)  # stable: each store's own order is kept on ties
    return found


def active_count(store: MemoryStore) -> int:
    """Active memories recall can show (those archived by disuse not counted)."""
    if not store.exists:
        return 0
    conn = store.conn
    total = conn.execute("SELECT count(*) FROM memories WHERE status = 'active'").fetchone()[0]
    return int(total) - len(archived_by_disuse(conn))


# -- the pass --------------------------------------------------------------------------------


def last_pass(conn: sqlite3.Connection) -> str | None:
    """When the last cleanup pass ran, or None if never."""
    row = conn.execute("SELECT value FROM lifecycle WHERE key = ?", (LAST_PASS_KEY,)).fetchone()
    return row[0] if row else None


def sessions_since_pass(conn: sqlite3.Connection) -> int:
    """Sessions started after the last cleanup pass (all sessions when there was none)."""
    since = last_pass(conn)
    if since is None:
        return int(conn.execute("SELECT count(*) FROM sessions").fetchone()[0])
    row = conn.execute("SELECT count(*) FROM sessions WHERE started > ?", (since,)).fetchone()
    return int(row[0])


def record_pass(conn: sqlite3.Connection, moment: datetime | None = None) -> str:
    """Record that a cleanup pass ran now (the session count starts again); return the time.

    A person ran the pass: call it through :meth:`MemoryStore.write_per_user`, which refuses on
    a read-only store rather than record it in a copy that is thrown away."""
    when = format_timestamp(moment or now())
    conn.execute(
        "INSERT INTO lifecycle(key, value) VALUES(?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (LAST_PASS_KEY, when),
    )
    return when


@dataclass(frozen=True)
class CleanupStatus:
    """Where the store stands against the three thresholds of the cleanup hint."""

    sessions: int
    active: int
    stale: int | None
    """None when not counted: the sessions and active thresholds were not met first."""
    due: bool
    last_pass: str | None
    worst: tuple[Candidate, ...] = ()

    def to_dict(self, settings: EngineSettings) -> dict[str, Any]:
        """JSON-ready form, with the thresholds it was judged against."""
        return {
            "due": self.due,
            "sessions_since_last_pass": self.sessions,
            "active": self.active,
            "stale": self.stale,
            "last_pass": self.last_pass,
            "thresholds": {
                "sessions": settings.cleanup_min_sessions,
                "active": settings.cleanup_min_active,
                "stale": settings.cleanup_min_stale,
            },
            "worst": [c.to_dict() for c in self.worst],
        }


#: Worst offenders named in the hint: enough to show what cleanup is about, few enough to read.
HINT_WORST: Final = 3


def status(
    home: MemoryStore,
    stores: Sequence[MemoryStore],
    settings: EngineSettings,
    genome_for: GenomeFor,
) -> CleanupStatus:
    """The cleanup status: sessions are counted in ``home`` (the store recording sessions).

    Stale candidates are looked for only when the two cheap thresholds are already met, so a
    session start stays quick while the store is young.
    """
    sessions = sessions_since_pass(home.conn) if home.exists else 0
    active = sum(active_count(store) for store in stores)
    passed = last_pass(home.conn) if home.exists else None
    cheap = sessions >= settings.cleanup_min_sessions and active >= settings.cleanup_min_active
    if not cheap:
        return CleanupStatus(sessions, active, None, False, passed)
    found = ranked(stores, genome_for)
    due = cleanup_due(sessions, active, len(found), settings)
    return CleanupStatus(sessions, active, len(found), due, passed, tuple(found[:HINT_WORST]))


# -- decisions -------------------------------------------------------------------------------


def check_decisions(
    wanted: dict[str, Sequence[str]], resolve: Callable[[str], object] | None = None
) -> list[tuple[str, str]]:
    """(id, decision) pairs in the order given; a memory given twice is bad input.

    ``resolve`` tells which memory an id names (a prefix and the full id name the same one);
    without it, ids are compared as typed."""
    seen: dict[object, str] = {}
    pairs: list[tuple[str, str]] = []
    for decision in DECISIONS:
        for ref in wanted.get(decision) or ():
            key = resolve(ref) if resolve is not None else ref.strip().lower()
            if seen.get(key) == decision:
                raise BadInput(f"memory {ref} is given twice to --{decision}; give it once")
            if key in seen:
                raise BadInput(
                    f"memory {ref} is given to both --{seen[key]} and --{decision}; pick one"
                )
            seen[key] = decision
            pairs.append((ref, decision))
    return pairs


def apply(
    store: MemoryStore, memory: Memory, decision: str, genome: Any | None = None
) -> tuple[Memory, list[str]]:
    """Apply one decision to a memory of ``store``; return the memory as it now is, and a
    note for each part of it that could not be done. A confirm is
    :func:`recall.lifecycle.confirming.confirm`, as ``tether confirm`` does it: its anchors'
    bodies are read through ``genome`` (the project's), and each one not found is noted. A
    deleted memory cannot be confirmed or kept, as it cannot be archived."""
    if decision == "archive":
        updated = store.set_status(memory.id, "archived", allowed_from=("active",))
    elif decision == "delete":
        updated = store.set_status(
            memory.id, "deleted", allowed_from=("active", "pending", "archived", "superseded")
        )
    elif decision == "confirm":
        done = confirm(store, memory, genome)
        return done.memory, done.not_found_notes()
    elif decision == "keep":
        refuse_deleted(memory, "keep")
        refuse_pending(memory, "keep")
        updated = memory
        store.write_per_user(lambda conn: vouched_for(conn, memory.id))
    else:
        raise BadInput(f"unknown decision {decision!r}; use one of {', '.join(DECISIONS)}")
    return updated, []
