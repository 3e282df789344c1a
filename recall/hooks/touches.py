"""The files a session's edit tool touched, kept in the project index (``hook_touches``, created
here on first use) between hook calls, so a prompt's recall knows what the session is working on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from recall.index.schema import TOUCHES_DDL

if TYPE_CHECKING:
    import sqlite3

RECENT_FILES: Final = 5
"""How many of the session's recently edited files a prompt's recall is given."""

RECENT_TURNS: Final = 10
"""How far back (in turns) an edited file still counts as recently touched."""

DDL: Final = TOUCHES_DDL
"""The touches table, created here on first use (defined with the index schema, from which a
rebuild creates it too)."""


def record_touch(conn: sqlite3.Connection, session: str, path: str, turn: int) -> None:
    """Remember that the session's edit tool touched ``path`` in ``turn``."""
    conn.executescript(DDL)
    with conn:
        seq = conn.execute(
            "SELECT coalesce(max(seq), 0) + 1 FROM hook_touches WHERE session = ?", (session,)
        ).fetchone()[0]
        conn.execute(
            "INSERT INTO hook_touches(session, path, turn, seq) VALUES(?, ?, ?, ?) "
            "ON CONFLICT(session, path) DO UPDATE SET turn = excluded.turn, seq = excluded.seq",
            (session, path, turn, seq),
        )


def recent_touches(conn: sqlite3.Connection, session: str, turn: int) -> list[str]:
    """The files the session edited in the last :data:`RECENT_TURNS` turns, newest first."""
    # Read only: creating the table would wait for any other writer of the index.
    known = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_touches'"
    if conn.execute(known).fetchone() is None:
        return []
    rows = conn.execute(
        "SELECT path FROM hook_touches WHERE session = ? AND turn >= ? ORDER BY seq DESC LIMIT ?",
        (session, turn - RECENT_TURNS, RECENT_FILES),
    ).fetchall()
    return [row[0] for row in rows]


def _current_turn(conn: sqlite3.Connection, session: str) -> int:
    row = conn.execute("SELECT turns FROM sessions WHERE id = ?", (session,)).fetchone()
    return int(row[0]) if row else 0
