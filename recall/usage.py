"""Per-user behaviour counters: how often a memory was shown and how often someone acted on it."""

from __future__ import annotations

import sqlite3

from recall.clock import now_iso


def record_action(conn: sqlite3.Connection, memory_id: str, *, when: str | None = None) -> None:
    """Count one action on a memory (details fetched, pinned, superseded, followed...)."""
    moment = when or now_iso()
    conn.execute(
        "INSERT INTO usage(memory_id, acted, last_acted) VALUES(?, 1, ?) "
        "ON CONFLICT(memory_id) DO UPDATE SET acted = acted + 1, last_acted = excluded.last_acted",
        (memory_id, moment),
    )


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
) -> None:
    """Count that each memory was shown once (call once per turn, never per keystroke)."""
    if not memory_ids:
        return
    moment = when or now_iso()
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany(
            "INSERT INTO usage(memory_id, surfaced, first_surfaced, last_surfaced) "
            "VALUES(?, 1, ?, ?) ON CONFLICT(memory_id) DO UPDATE SET "
            "surfaced = surfaced + 1, last_surfaced = excluded.last_surfaced, "
            "first_surfaced = coalesce(first_surfaced, excluded.first_surfaced)",
            [(memory_id, moment, moment) for memory_id in memory_ids],
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
