"""Soft-archive by disuse: memories shown again and again and never acted on leave recall.

The archive is per user. It is the ``usage.archived_by_disuse`` flag in the index, next to the
counters it is decided from, and the memory file is left untouched: the counters are one
person's, so a teammate's shared memory must not be rewritten (and its archive committed for
everyone) because *this* person kept ignoring it. The flag survives a rebuild of an index made
where it lies, never one that came with the repository (:mod:`recall.index.keep`); a person's
``tether archive`` still writes ``status: archived`` into the file, for everyone.

A disuse-archived memory is hidden from recall and hints, listed by
``tether list --status archived`` as "archived by disuse", and shown by ``tether show`` with
its state. ``tether restore`` clears the flag and starts its showing count afresh, so it does
not archive again at the next session start. Pinned and guarded memories are never archived
by disuse, and one pinned or guarded since is back at once, for good.
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from recall.clock import format_timestamp, now, parse_timestamp
from recall.errors import BadInput, NothingToDo
from recall.index.db import rollback
from recall.lifecycle import UsageFacts, archive_due
from recall.listed_names import earlier_names, folder_names, own_name_in
from recall.newest_first import newest_first
from recall.policy.usage import record_action
from recall.settings import EngineSettings
from recall.written_moments import names_it_by

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore

# Only an active, unpinned and unguarded memory can be archived by disuse: one a person
# archived, deleted or superseded is already out of recall, and a pinned or guarded one is
# exempt (even if pinned or guarded afterwards, by hand too, until a session start clears it).
_FLAGGED = (
    # "+m.status": start from the usage rows (few are flagged), not from every active memory
    "SELECT u.memory_id, u.archived_at FROM usage u JOIN memories m ON m.id = u.memory_id "
    "WHERE u.archived_by_disuse = 1 AND +m.status = 'active' AND m.pinned = 0 AND m.guard = 0"
)


@dataclass(frozen=True)
class Archived:
    """A memory the pass archived."""

    memory_id: str
    summary: str
    """As written in its file (:attr:`for_agent` is what agents and scripts are given)."""
    surfaced: int
    holds_secret: bool = False
    """Whether its text holds a credential (the index's ``secret`` column)."""

    @property
    def for_agent(self) -> str:
        """The summary as an agent is given it: a credential in it masked
        (:mod:`recall.agent_text`)."""
        if not self.holds_secret:
            return self.summary
        from recall.secret_masking import masked  # the scanner: only for a memory holding one

        return masked(self.summary)


def stamp(value: str | None) -> datetime | None:
    """A stored timestamp as a datetime; None when absent or unreadable (hand-edited)."""
    if not value:
        return None
    try:
        return parse_timestamp(value)
    except BadInput:
        return None


def archived_by_disuse(conn: sqlite3.Connection) -> dict[str, str | None]:
    """The memories hidden by disuse: id -> when they were archived (None if not recorded)."""
    return {row[0]: row[1] for row in conn.execute(_FLAGGED)}


def is_archived_by_disuse(conn: sqlite3.Connection, memory_id: str) -> bool:
    """Whether one memory is hidden by disuse."""
    row = conn.execute(_FLAGGED + " AND u.memory_id = ?", (memory_id,)).fetchone()
    return row is not None


def archive_ignored(
    conn: sqlite3.Connection, settings: EngineSettings, moment: datetime | None = None
) -> list[Archived]:
    """Archive every memory whose disuse is due (see :func:`recall.lifecycle.archive_due`);
    first, clear the flag of any memory pinned or guarded since it was archived."""
    # A memory pinned or guarded since disuse archived it is back for good: that was an
    # action, so it cannot be archived again, and unpinning it later must not hide it again
    # (`tether pin` and `tether guard` clear the flag at once: StatusChanges.lift_disuse).
    with _transaction(conn):
        conn.execute(
            "UPDATE usage SET archived_by_disuse = 0, archived_at = NULL "
            "WHERE archived_by_disuse = 1 "
            "AND memory_id IN (SELECT id FROM memories WHERE pinned = 1 OR guard = 1)"
        )
    if not settings.archive_by_disuse:
        return []
    at = moment or now()
    rows = conn.execute(
        "SELECT m.id, m.summary, m.secret, m.pinned, m.guard, u.surfaced, u.acted, "
        "u.first_surfaced "
        "FROM usage u JOIN memories m ON m.id = u.memory_id "
        "WHERE m.status = 'active' AND m.pinned = 0 AND m.guard = 0 "
        "AND u.archived_by_disuse = 0 "
        "AND u.acted = 0 AND u.surfaced >= ?",
        (settings.archive_min_surfacings,),
    ).fetchall()
    due = [
        Archived(row["id"], row["summary"], int(row["surfaced"]), bool(row["secret"]))
        for row in rows
        if archive_due(
            UsageFacts(
                surfaced=int(row["surfaced"]),
                acted=int(row["acted"]),
                first_surfaced=stamp(row["first_surfaced"]),
                pinned=bool(row["pinned"]),
                guarded=bool(row["guard"]),
            ),
            at,
            settings,
        )
    ]
    if due:
        with _transaction(conn):
            conn.executemany(
                "UPDATE usage SET archived_by_disuse = 1, archived_at = ? WHERE memory_id = ?",
                [(format_timestamp(at), item.memory_id) for item in due],
            )
    return due


def restore(conn: sqlite3.Connection, memory_id: str) -> bool:
    """Bring a memory back from disuse: clear the flag and reset the counts it was decided on.

    Its showings start from zero (and so does its ignore penalty); its actions are kept. Returns
    False when the memory was not archived by disuse.
    """
    with _transaction(conn):
        cursor = conn.execute(
            "UPDATE usage SET archived_by_disuse = 0, archived_at = NULL, surfaced = 0, "
            "first_surfaced = NULL, last_surfaced = NULL "
            "WHERE memory_id = ? AND archived_by_disuse = 1",
            (memory_id,),
        )
    return cursor.rowcount > 0


def _drop_flag(conn: sqlite3.Connection, memory_id: str) -> None:
    """Clear a disuse flag a person's own archive made stale, its counts kept."""
    with _transaction(conn):
        conn.execute(
            "UPDATE usage SET archived_by_disuse = 0, archived_at = NULL "
            "WHERE memory_id = ? AND archived_by_disuse = 1",
            (memory_id,),
        )


def vouched_for(conn: sqlite3.Connection, memory_id: str, *, showings_stand: bool = False) -> None:
    """A person kept a memory on purpose (restored it, confirmed or kept it in a cleanup): count
    the action, and bring it back from disuse if it was there (its showings start afresh,
    unless ``showings_stand``: a flag a person's own archive made stale is only cleared)."""
    record_action(conn, memory_id)
    if showings_stand:
        _drop_flag(conn, memory_id)
    restore(conn, memory_id)


class Restored(NamedTuple):
    """What ``tether restore`` did to one memory."""

    memory: Memory
    """The memory as it now is."""
    from_disuse: bool
    """Whether it came back from this user's disuse (not an action)."""
    unreplaced: list[str]
    """The memories that said they supersede it, whose ``supersedes`` line was removed: both
    are active now, each in recall on its own."""
    replaces_no_more: str | None = None
    """The active memory its own ``supersedes`` line named (one restored before it), removed
    from that line: left there, it would keep that memory out of recall while listed active."""
    to_review: bool = False
    """Whether it went back to pending review: it was deleted while pending (a proposal
    dropped), so restoring it undoes the drop, not the review."""


def bring_back(store: MemoryStore, memory: Memory, allowed_from: tuple[str, ...]) -> Restored:
    """What ``tether restore`` does, from whichever surface a person runs it.

    A memory deleted while pending review (a dropped proposal: ``deleted_from: pending`` in its
    file) goes back to pending, not to recall: a person has not reviewed it yet.

    An active memory this user's disuse archived comes back with its showing count started
    afresh; that is not an action, so disuse may archive it again after as many new showings.
    Any other memory moves back to active (from one of ``allowed_from``), which counts as
    acting on it and drops a disuse flag set before a person archived it, its showings kept
    (the person's archive, not disuse, is what is undone). A read-only store
    refuses either, saying what to do.

    Either way, a memory of the store that says it supersedes this one no longer does (its
    ``supersedes`` line is removed; the restored memory's ``superseded_by`` is too): an active
    memory naming it would keep it out of recall while it is listed as active. An active
    memory left in that state by an older version is brought back the same way.
    """
    if memory.status == "deleted":
        from recall.lifecycle.references import with_lifecycle_keys
        from recall.store.changes import DELETED_FROM_KEY

        with store.changing(memory.id) as now:  # still deleted under the writers' lock?
            if (
                now.status == "deleted"
                and with_lifecycle_keys(store, now).extra.get(DELETED_FROM_KEY) == "pending"
            ):
                from recall.frontmatter import REMOVE

                updated = store.update_fields(
                    now.id, {"status": "pending", DELETED_FROM_KEY: REMOVE}
                )
                return Restored(updated, False, [], to_review=True)
    flagged = store.exists and is_archived_by_disuse(store.conn, memory.id)
    if (
        memory.status == "active"
        and flagged
        and store.write_per_user(lambda conn: restore(conn, memory.id))
    ):
        return Restored(memory, True, store.unlink_replacements(memory.id))
    if memory.status == "active":  # nothing to restore but the links that hide it
        unreplaced = store.unlink_replacements(memory.id)
        if not unreplaced:
            raise NothingToDo(f"memory {memory.id} is already active")
        updated = memory
    else:
        updated = store.set_status(memory.id, "active", allowed_from=allowed_from)
        unreplaced = store.unlink_replacements(memory.id)
    replaces_no_more = None
    if updated.supersedes:
        with store.changing(updated.id) as updated:  # its link as it is under the lock
            old = store.find(updated.supersedes) if updated.supersedes else None
            if old is not None and old.status == "active" and old.superseded_by != updated.id:
                from recall.frontmatter import REMOVE

                updated = store.update_fields(updated.id, {"supersedes": REMOVE})
                replaces_no_more = old.id
    # a person's own archive undone: a disuse flag from before it is stale, its showings stand
    stale = memory.status != "active"
    store.write_per_user(lambda conn: vouched_for(conn, memory.id, showings_stand=stale))
    return Restored(updated, False, unreplaced, replaces_no_more)


def restored_message(restored: Restored) -> str:
    """The line a person reads after ``tether restore``, the same on every surface."""
    said = f"Restored {restored.memory.id}"
    if restored.to_review:
        memory_id = restored.memory.id
        return (
            f"{said} to pending review, as it was before it was dropped: "
            f"`tether pending confirm {memory_id}` makes it active"
        )
    if restored.from_disuse:
        said += " (it was archived by disuse)"
    if restored.unreplaced:
        said += f"; it is no longer replaced by {', '.join(restored.unreplaced)}: both are active"
    if restored.replaces_no_more:
        said += (
            f"; it no longer supersedes {restored.replaces_no_more}, restored before it: both "
            "are active"
        )
    return said


def seen_state(memory: Memory, disused: dict[str, str | None]) -> dict[str, str | None]:
    """The status fields of a memory's JSON as this user sees it, the same wherever it is shown
    (``tether list``, ``tether show``, the MCP tools).

    One in ``disused`` (id -> when this user's disuse archived it) is ``archived`` with
    ``archived_by: disuse``, its ``archived_at`` and the file's own status as ``file_status``;
    one a person archived says ``archived_by: person``; any other is its file's status.
    """
    if memory.id in disused:
        return {
            "status": "archived",
            "archived_by": "disuse",
            "file_status": memory.status,
            "archived_at": disused[memory.id],
        }
    if memory.status == "archived":
        return {"status": "archived", "archived_by": "person"}
    return {"status": memory.status}


def as_seen(
    store: MemoryStore,
    *,
    file: str | None = None,
    category: str | None = None,
    status: str | None = "active",
    history: MemoryStore | None = None,
) -> tuple[list[Memory], dict[str, str | None]]:
    """A store's memories of ``status`` as this user sees them, newest first, and the ones
    archived by disuse (id -> when).

    Disuse leaves the file active, so for this user such a memory lists as archived, not
    active; merged into the archived ones, it takes its place by ``created`` as
    :meth:`MemoryStore.list` orders them. A ``file`` of the repository also lists the memories
    naming it by an earlier name (a rename since they were written), as recall finds them:
    the names git's history gives it, read from ``history``, the repository's project store
    (``store`` itself when not given), whichever store the memories are in
    (:func:`recall.listed_names.earlier_names`).
    """
    flagged = archived_by_disuse(store.conn) if store.exists else {}
    history = store if history is None else history
    dated = earlier_names(history, file) if file else []
    own = own_name_in(history, file) if file else None
    in_folder = folder_names(history, file) if file and not dated else []
    earlier = [n.name for n in (*dated, *in_folder)]
    found = store.list(file=file, category=category, status=status, earlier=earlier)
    if status == "archived" and flagged:
        active = store.list(file=file, category=category, status="active", earlier=earlier)
        found += [m for m in active if m.id in flagged]
    # by a reused name: an earlier one only for memories written before it came back, its
    # own only for those written since the file there now took it
    if file and (dated or (own is not None and own.after > -math.inf)):
        found = [m for m in found if names_it_by(m.files, m.created, file, dated, own)]
    elif file and in_folder:  # by an earlier name: only as the file it names is dated
        inside = file.rstrip("/") + "/"
        found = [
            m
            for m in found
            if any(p.startswith(inside) for p in m.files)
            or names_it_by(m.files, m.created, file, in_folder)
        ]
    if status == "archived" and flagged:
        found = newest_first(found, lambda m: m)
    elif status == "active":
        found = [m for m in found if m.id not in flagged]
    return found, flagged


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` on an autocommit connection, rolled back on error
    (unless SQLite already has: it does on a full disk, see :func:`rollback`)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
