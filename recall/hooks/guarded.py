"""The edit hooks' side of guarded memories: before an edit of a guarded file the agent's harness
asks the person, once per session, memory and file.

A PostToolUse call for the file means the edit ran, so the person allowed it; that is kept in
``guard_allowed`` (created here on first use, one of the index's per-user tables) and the same
guard is not asked again in that session. An edit the person refused has no PostToolUse, so the
next try asks again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import sqlite3

    from recall.model import Memory
    from recall.store import MemoryStore

DDL: Final = """
CREATE TABLE IF NOT EXISTS guard_allowed(
    session TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY(session, memory_id, path)
) WITHOUT ROWID;
"""


def _allowed(conn: sqlite3.Connection, session: str, path: str) -> set[str]:
    conn.executescript(DDL)
    rows = conn.execute(
        "SELECT memory_id FROM guard_allowed WHERE session = ? AND path = ?", (session, path)
    )
    return {row[0] for row in rows}


def to_ask(store: MemoryStore, session: str, path: str) -> list[Memory]:
    """The guarded memories of ``path`` this session has not yet been allowed past."""
    from recall.policy.guard import guarded_for

    guarded = guarded_for(store, path)
    if not guarded:
        return []
    allowed = _allowed(store.conn, session, path)
    return [m for m in guarded if m.id not in allowed]


def record_allowed(store: MemoryStore, session: str, path: str) -> None:
    """The edit of ``path`` ran: its guards were allowed for the rest of the session."""
    from recall.policy.guard import guarded_rows

    ids = guarded_rows(store.conn, [path]).get(path, [])
    if not ids:
        return
    conn = store.conn
    conn.executescript(DDL)
    with conn:
        conn.executemany(
            "INSERT OR IGNORE INTO guard_allowed(session, memory_id, path) VALUES(?, ?, ?)",
            [(session, memory_id, path) for memory_id in ids],
        )
