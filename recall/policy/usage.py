"""Per-user behaviour counters: how often a memory was shown and how often someone acted on it.

Counting is bookkeeping (:mod:`recall.index.bookkeeping`): when the index cannot be written
just now, a count is skipped rather than failing the read that caused it. A store opened
read-only counts in its in-memory copy instead.

Each count is also added to its UTC day in ``usage_days``, which ``tether stats`` charts.

These counts exist only in the index, so each is written through
:func:`recall.index.db.write_transaction`: when a reindex replaced the file the connection
opened, the count goes into the new file rather than into the discarded one.
"""

from __future__ import annotations

import sqlite3

from recall.clock import format_timestamp, now_iso, parse_timestamp
from recall.index.bookkeeping import Outcome, bookkeeping


def day_of(moment: str) -> str:
    """The UTC day (``YYYY-MM-DD``) of an ISO-8601 moment, the key of ``usage_days``."""
    return format_timestamp(parse_timestamp(moment))[:10]


def record_action(conn: sqlite3.Connection, memory_id: str, *, when: str | None = None) -> Outcome:
    """Count one action on a memory (details fetched, pinned, superseded, followed...); says
    whether it was counted, or skipped for a busy index."""
    moment = when or now_iso()
    with bookkeeping(conn) as (target, outcome):
        target.execute(
            "INSERT INTO usage(memory_id, acted, last_acted) VALUES(?, 1, ?) "
            "ON CONFLICT(memory_id) DO UPDATE SET acted = acted + 1, "
            "last_acted = excluded.last_acted",
            (memory_id, moment),
        )
        target.execute(
            "INSERT INTO usage_days(day, memory_id, acted) VALUES(?, ?, 1) "
            "ON CONFLICT(day, memory_id) DO UPDATE SET acted = acted + 1",
            (day_of(moment), memory_id),
        )
    return outcome


def counters(conn: sqlite3.Connection, memory_id: str) -> dict[str, object]:
    """The usage counters of one memory (zeros when it was never shown or acted on)."""
    row = conn.execute(
        "SELECT surfaced, acted, last_surfaced, last_acted FROM usage WHERE memory_id = ?",
        (memory_id,),
    ).fetchone()
    if row is None:
        return {"surfaced": 0, "acted": 0, "last_surfaced": None, "last_acted": None}
    return dict(row)


def record_surfacings(
    conn: sqlite3.Connection, memory_ids: list[str], *, when: str | None = None
) -> Outcome:
    """Count that each memory was shown once (call once per turn, never per keystroke); says
    whether they were counted, or skipped for a busy index."""
    if not memory_ids:
        return Outcome(written=True)
    moment = when or now_iso()
    with bookkeeping(conn) as (target, outcome):
        target.executemany(
            "INSERT INTO usage(memory_id, surfaced, first_surfaced, last_surfaced) "
            "VALUES(?, 1, ?, ?) ON CONFLICT(memory_id) DO UPDATE SET "
            "surfaced = surfaced + 1, last_surfaced = excluded.last_surfaced, "
            "first_surfaced = coalesce(first_surfaced, excluded.first_surfaced)",
            [(memory_id, moment, moment) for memory_id in memory_ids],
        )
        target.executemany(
            "INSERT INTO usage_days(day, memory_id, surfaced) VALUES(?, ?, 1) "
            "ON CONFLICT(day, memory_id) DO UPDATE SET surfaced = surfaced + 1",
            [(day_of(moment), memory_id) for memory_id in memory_ids],
        )
    return outcome
