"""What ranking needs of candidate memories, read once per index state and kept.

A hub file's hundreds of memories are candidates of nearly every query that touches it; their
files, creation time, pin and content hash do not change until the memories table does
(:func:`recall.index.rows.index_stamp`). A long-lived engine keeps them here, so a query reads
only what it has not seen yet (one statement per kind, however many candidates). Usage
(surfacings, actions, archival) changes without the memories table and is read per query
(:func:`usage_of`).
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, NamedTuple

from recall.clock import parse_timestamp
from recall.errors import BadInput
from recall.index.db import tuples
from recall.ranking import introducers

JSON_VALUES: Final = "(SELECT value FROM json_each(?))"
"""Any number of values (rowids, terms) bound as one JSON array: one statement whatever their
number, where a list of bound parameters would have to be cut under SQLite's limit (999)."""


def moment(stamp: str | None) -> float | None:
    """A timestamp as seconds since the epoch, None when empty or unreadable."""
    if not stamp:
        return None
    try:
        # the form memories are written in, read as parse_timestamp reads it ("Z" and a
        # naive time as UTC) without its clean-up: a hub file's first touch reads thousands
        parsed = datetime.fromisoformat(stamp)
    except ValueError:
        try:  # spaces around it, say
            return parse_timestamp(stamp).timestamp()
        except BadInput:
            return None
    return (parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)).timestamp()


# Static and Owner are named tuples: a hub file's first touch builds one of each for every
# memory naming it (about 2,000), and a tuple is built at about half a frozen dataclass's cost.
class Static(NamedTuple):
    """What ranking needs of one active memory that only a change to the index changes."""

    id: str
    pinned: bool
    created: str
    then: float | None
    """``created`` in seconds (None when empty or unreadable: its age counts as 0 days)."""
    content_hash: str
    replaced: bool
    """Whether an active memory supersedes it."""


class Owner(NamedTuple):
    """An active memory naming a file: its rowid, creation time (as written and in seconds,
    inf when unreadable) and kind."""

    rowid: int
    created: str
    seconds: float
    kind: str


class FactsMemo:
    """Static facts of memories and the active memories on each path, for one index state
    (the caller drops it when the state changes)."""

    LIMIT: Final = 200_000
    """Entries kept before the memo is emptied and refilled: bounds memory on a huge store;
    a speed setting, not a judgement (any value ranks the same)."""

    def __init__(self) -> None:
        """An empty memo."""
        self._static: dict[int, Static | None] = {}
        self._files: dict[int, frozenset[str]] = {}
        self._owners: dict[str, tuple[Owner, ...]] = {}
        self._brought_in: dict[int, frozenset[str]] = {}
        self._replaced: frozenset[str] | None = None

    def replaced(self, conn: sqlite3.Connection) -> frozenset[str]:
        """The ids an active memory supersedes (read once: a few rows, where asking per
        memory costs a look-up for each of a hub file's thousands)."""
        if self._replaced is None:
            self._replaced = frozenset(
                memory_id
                for (memory_id,) in conn.execute(
                    # ">= ''" (every text, no NULL) walks the supersedes index, where
                    # "IS NOT NULL" scans the table
                    "SELECT supersedes FROM memories WHERE supersedes >= '' AND +status = 'active'"
                )
            )
        return self._replaced

    def statics(self, conn: sqlite3.Connection, rowids: Collection[int]) -> dict[int, Static]:
        """The facts of the active memories among ``rowids`` (the others left out); those
        not kept yet read in one statement."""
        kept = self._static
        missing = [r for r in rowids if r not in kept]
        if missing:
            if len(kept) + len(missing) > self.LIMIT:
                kept.clear()
                missing = list(rowids)
            kept.update(_read_statics(conn, missing, self.replaced(conn)))
        return {r: found for r in rowids if (found := kept.get(r)) is not None}

    def files(self, conn: sqlite3.Connection, rowids: Collection[int]) -> dict[int, frozenset[str]]:
        """The files each of ``rowids`` names (a memory's files are distinct); those not kept
        yet read in one statement."""
        kept = self._files
        missing = [r for r in rowids if r not in kept]
        if missing:
            if len(kept) + len(missing) > self.LIMIT:
                kept.clear()
                missing = list(dict.fromkeys(rowids))
            found: dict[int, list[str]] = {rowid: [] for rowid in missing}
            for rowid, path in tuples(conn).execute(
                f"SELECT memory_rowid, path FROM memory_files WHERE memory_rowid IN {JSON_VALUES}",
                (json.dumps(missing),),
            ):
                found[rowid].append(path)
            kept.update((rowid, frozenset(paths)) for rowid, paths in found.items())
        return {r: kept[r] for r in rowids}

    def brought_in(
        self, conn: sqlite3.Connection, rowids: Collection[int]
    ) -> dict[int, frozenset[str]]:
        """What each of ``rowids`` announces bringing in, by its summary
        (:func:`recall.ranking.introducers.brought_in`; none for a row that is gone); those
        not kept yet read in one statement."""
        kept = self._brought_in
        missing = [r for r in dict.fromkeys(rowids) if r not in kept]
        if missing:
            if len(kept) + len(missing) > self.LIMIT:
                kept.clear()
                missing = list(dict.fromkeys(rowids))
            found: dict[int, frozenset[str]] = dict.fromkeys(missing, frozenset())
            for rowid, summary in conn.execute(
                f"SELECT rowid, summary FROM memories WHERE rowid IN {JSON_VALUES}",
                (json.dumps(missing),),
            ):
                found[rowid] = introducers.brought_in(summary or "")
            kept.update(found)
        return {r: kept[r] for r in rowids}

    def owners(
        self, conn: sqlite3.Connection, paths: Sequence[str]
    ) -> dict[str, tuple[Owner, ...]]:
        """The active memories naming each of ``paths``; the paths not kept yet read in one
        statement, which keeps the facts of their memories too (:meth:`statics`)."""
        kept = self._owners
        missing = [p for p in dict.fromkeys(paths) if p not in kept]
        if missing:
            if len(kept) + len(missing) > self.LIMIT:
                kept.clear()
                missing = list(dict.fromkeys(paths))
            owners, statics = _read_owners(conn, missing, self.replaced(conn))
            kept.update(owners)
            if len(self._static) + len(statics) > self.LIMIT:
                self._static.clear()
            self._static.update(statics)
        return {p: kept[p] for p in paths if kept[p]}


def _read_statics(
    conn: sqlite3.Connection, rowids: list[int], replaced: frozenset[str]
) -> dict[int, Static | None]:
    """One statement: the facts of ``rowids`` (None for an inactive one); ``replaced``: the
    ids an active memory supersedes."""
    found: dict[int, Static | None] = dict.fromkeys(rowids)
    for rowid, memory_id, pinned, created, content_hash in tuples(conn).execute(
        "SELECT m.rowid, m.id, m.pinned, m.created, m.content_hash "
        f"FROM memories m WHERE m.rowid IN {JSON_VALUES} AND +m.status = 'active'",
        (json.dumps(rowids),),
    ):
        found[rowid] = Static(
            memory_id, bool(pinned), created, moment(created), content_hash, memory_id in replaced
        )
    return found


def _read_owners(
    conn: sqlite3.Connection, paths: list[str], replaced: frozenset[str]
) -> tuple[dict[str, tuple[Owner, ...]], dict[int, Static]]:
    """One statement: the active memories naming each of ``paths``, in the order SQLite
    returns them, and the facts of each (candidates of the file channels, read with them);
    ``replaced``: the ids an active memory supersedes."""
    found: dict[str, list[Owner]] = {path: [] for path in paths}
    statics: dict[int, Static] = {}
    query = (
        "SELECT mf.path, mf.memory_rowid, m.created, m.category, m.id, m.pinned, "
        "m.content_hash "
        "FROM memory_files mf JOIN memories m ON m.rowid = mf.memory_rowid "
        # "+m.status" keeps SQLite on the path index; without statistics it may otherwise
        # walk every active memory through the status index.
        f"WHERE mf.path IN {JSON_VALUES} AND +m.status = 'active'"
    )
    for path, rowid, created, kind, memory_id, pinned, content_hash in tuples(conn).execute(
        query, (json.dumps(paths),)
    ):
        seconds = moment(created)
        found[path].append(Owner(rowid, created, math.inf if seconds is None else seconds, kind))
        statics[rowid] = Static(
            memory_id, bool(pinned), created, seconds, content_hash, memory_id in replaced
        )
    return {path: tuple(owners) for path, owners in found.items()}, statics


@dataclass(frozen=True, slots=True)
class Usage:
    """How a memory was used: shown, acted on, last acted on, archived by disuse."""

    surfaced: int
    acted: int
    last_acted: str | None
    archived: bool


def usage_of(conn: sqlite3.Connection, ids: list[str]) -> dict[str, Usage]:
    """The usage of the memories among ``ids`` that have any, in one statement."""
    if not ids:
        return {}
    return {
        memory_id: Usage(surfaced or 0, acted or 0, last_acted, bool(archived))
        for memory_id, surfaced, acted, last_acted, archived in conn.execute(
            # archived only as recall.lifecycle.disuse reads the flag: not pinned or guarded
            # since (looked up for the few flagged rows only)
            "SELECT u.memory_id, u.surfaced, u.acted, u.last_acted, "
            "CASE WHEN u.archived_by_disuse = 1 THEN NOT EXISTS ("
            "SELECT 1 FROM memories m WHERE m.id = u.memory_id AND (m.pinned = 1 OR m.guard = 1)"
            ") ELSE 0 END FROM usage u "
            f"WHERE u.memory_id IN {JSON_VALUES}",
            (json.dumps(ids),),
        )
    }
