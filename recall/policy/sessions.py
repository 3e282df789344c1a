"""Sessions and turns: one agent session id or editor lifetime, one prompt or save per turn."""

from __future__ import annotations

import sqlite3

from recall.clock import now_iso
from recall.display import as_given
from recall.errors import BadInput
from recall.index.bookkeeping import bookkeeping

MAX_SESSION_ID = 200  # agent session ids are uuids; anything far longer is not an id


def check_session_id(session_id: str) -> str:
    """Validate a session id given on the command line or in hook input (the index stores it
    as UTF-8 text, so bytes that are not UTF-8 are refused here rather than failing there)."""
    if not session_id.strip() or len(session_id) > MAX_SESSION_ID or "\x00" in session_id:
        raise BadInput(f"--session must be a non-empty id of at most {MAX_SESSION_ID} characters")
    try:
        session_id.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(
            f"--session {as_given(session_id)} is not valid UTF-8 text; give an id of UTF-8 "
            "characters (a uuid, say)"
        ) from None
    return session_id


def count_turn(conn: sqlite3.Connection, session_id: str, *, origin: str = "cli") -> int:
    """Record one turn of ``session_id`` (starting the session if new); return its number.

    When the index cannot be written just now (read-only, or out of room) the turn is not
    recorded and the number it would have had is returned.
    """
    check_session_id(session_id)
    turn = None
    with bookkeeping(conn) as (target, outcome):
        add_turns(target, session_id, 1, origin=origin)
        turn = target.execute("SELECT turns FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if outcome.written and turn is not None:
        return int(turn[0])
    row = conn.execute("SELECT turns FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return int(row[0]) + 1 if row else 1


def add_turns(conn: sqlite3.Connection, session_id: str, count: int, *, origin: str) -> None:
    """Count ``count`` more turns of ``session_id`` (starting the session if new), in the
    caller's transaction."""
    moment = now_iso()
    conn.execute(
        "INSERT INTO sessions(id, started, last_seen, turns, origin) VALUES(?, ?, ?, ?, ?) "
        "ON CONFLICT(id) DO UPDATE SET turns = turns + excluded.turns, "
        "last_seen = excluded.last_seen",
        (session_id, moment, moment, count, origin),
    )
