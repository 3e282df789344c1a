"""The edit hooks' ledger of guards a person has let an edit past: asked once per session,
memory and file.

The PreToolUse call that asks notes which guards it asked about (``guard_asked``, one row per
guard of the file's latest ask). A PostToolUse call for the file means that edit ran, so the
person allowed it: the guards asked about are moved to ``guard_allowed`` (created here on first
use, one of the index's per-user tables) and are not asked about again in that session. An edit
outside a guarded symbol asks nothing, so its PostToolUse allows nothing. An edit the person
refused has no PostToolUse, so the next try asks again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import sqlite3

    from recall.model import Memory

DDL: Final = """
CREATE TABLE IF NOT EXISTS guard_allowed(
    session TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY(session, memory_id, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS guard_asked(
    session TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY(session, memory_id, path)
) WITHOUT ROWID;
"""


def not_yet_allowed(
    conn: sqlite3.Connection, session: str, path: str, guarded: list[Memory]
) -> list[Memory]:
    """The guarded memories of ``path`` this session has not been allowed past yet."""
    conn.executescript(DDL)
    rows = conn.execute(
        "SELECT memory_id FROM guard_allowed WHERE session = ? AND path = ?", (session, path)
    )
    allowed = {row[0] for row in rows}
    return [m for m in guarded if m.id not in allowed]


def record_asked(conn: sqlite3.Connection, session: str, path: str, asked: list[Memory]) -> None:
    """The edit of ``path`` about to run asks about ``asked`` (none: it asks nothing); what an
    earlier, refused, edit of the file asked about is forgotten."""
    conn.executescript(DDL)
    with conn:
        conn.execute("DELETE FROM guard_asked WHERE session = ? AND path = ?", (session, path))
        conn.executemany(
            "INSERT OR IGNORE INTO guard_asked(session, memory_id, path) VALUES(?, ?, ?)",
            [(session, m.id, path) for m in asked],
        )


def record_allowed(conn: sqlite3.Connection, session: str, path: str) -> None:
    """The edit of ``path`` ran: the guards its PreToolUse asked about are allowed for the rest
    of the session."""
    conn.executescript(DDL)
    with conn:
        conn.execute(
            "INSERT OR IGNORE INTO guard_allowed(session, memory_id, path) "
            "SELECT session, memory_id, path FROM guard_asked WHERE session = ? AND path = ?",
            (session, path),
        )
        conn.execute("DELETE FROM guard_asked WHERE session = ? AND path = ?", (session, path))
