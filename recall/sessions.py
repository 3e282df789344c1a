"""Sessions and turns: one agent session id or editor lifetime, one prompt or save per turn."""

from __future__ import annotations

import sqlite3

from recall.clock import now_iso
from recall.errors import BadInput

MAX_SESSION_ID = 200  # agent session ids are uuids; anything far longer is not an id


def check_session_id(session_id: str) -> str:
    """Validate a session id given on the command line or in hook input."""
    if not session_id.strip() or len(session_id) > MAX_SESSION_ID or "\x00" in session_id:
        raise BadInput(f"--session must be a non-empty id of at most {MAX_SESSION_ID} characters")
    return session_id


def count_turn(conn: sqlite3.Connection, session_id: str, *, origin: str = "cli") -> int:
    """Record one turn of ``session_id`` (starting the session if new); return its number."""
    moment = now_iso()
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "INSERT INTO sessions(id, started, last_seen, turns, origin) VALUES(?, ?, ?, 1, ?) "
            "ON CONFLICT(id) DO UPDATE SET turns = turns + 1, last_seen = excluded.last_seen",
            (check_session_id(session_id), moment, moment, origin),
        )
        turn = conn.execute("SELECT turns FROM sessions WHERE id = ?", (session_id,)).fetchone()
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return int(turn[0])
