"""The edit hooks' ledger of guards a person has let an edit past: asked once per session,
memory and file.

The PreToolUse call that asks notes which guards it asked about (``guard_asked``), under the
tool call's id when the agent sends one (Claude Code's ``tool_use_id``). A PostToolUse call
means that edit ran, so the person allowed it: the guards its own PreToolUse asked about are
moved to ``guard_allowed`` and are not asked about again in that session. Edits run side by
side are told apart by their ids: one allowed edit never allows what another, refused, edit
asked. Without an id, one row set per session and file stands for the file's latest ask, and a
PostToolUse of the file allows it. An edit outside a guarded symbol asks nothing, so its
PostToolUse allows nothing; an edit the person refused has no PostToolUse, so the next try asks
again. Both tables are created here on first use and are per-user tables of the index.
"""

from __future__ import annotations

import sqlite3
import time
from typing import TYPE_CHECKING, Final

from recall.index.schema import GUARD_LEDGER_DDL

if TYPE_CHECKING:
    from recall.model import Memory

DDL: Final = GUARD_LEDGER_DDL
"""The ledger's tables, created here on first use (defined with the index schema, from which a
rebuild creates them too)."""


ASKED_KEEP_DAYS: Final = 1
"""How long an ask nobody answered (a refused or interrupted edit has no PostToolUse) is kept:
an edit runs within its turn, so a day-old ask is never answered, and dropping it costs at most
a repeated question. Asks of every session older than this are pruned as new ones are noted."""

_COLUMNS: Final = frozenset({"tool_use", "asked"})


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {row[1] for row in conn.execute("PRAGMA table_info(guard_asked)")}


def _ensure(conn: sqlite3.Connection) -> None:
    """The ledger's tables; a ``guard_asked`` from before tool call ids or ask times is made
    anew (it holds only asks still pending, which are asked again). Checked again under the
    write lock, so two hooks migrating at once never drop each other's new rows."""
    if _COLUMNS.issubset(_columns(conn)):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        columns = _columns(conn)
        if columns and not _COLUMNS.issubset(columns):
            conn.execute("DROP TABLE guard_asked")
        for statement in DDL.split(";"):
            conn.execute(statement)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def not_yet_allowed(
    conn: sqlite3.Connection, session: str, path: str, guarded: list[Memory]
) -> list[Memory]:
    """The guarded memories of ``path`` this session has not been allowed past yet."""
    try:
        rows = conn.execute(
            "SELECT memory_id FROM guard_allowed WHERE session = ? AND path = ?", (session, path)
        ).fetchall()
    except sqlite3.OperationalError:  # not created yet: nothing allowed
        rows = []
    allowed = {row[0] for row in rows}
    return [m for m in guarded if m.id not in allowed]


def record_asked(
    conn: sqlite3.Connection, session: str, path: str, asked: list[Memory], tool_use: str = ""
) -> None:
    """The edit of ``path`` about to run (tool call ``tool_use``, '' when unknown) asks about
    ``asked`` (none: it asks nothing). Without an id, what an earlier, refused, edit of the
    file asked about is forgotten."""
    _ensure(conn)
    moment = int(time.time())
    with conn:
        conn.execute(
            "DELETE FROM guard_asked WHERE session = ? AND path = ? AND tool_use = ?",
            (session, path, tool_use),
        )
        conn.execute(
            "DELETE FROM guard_asked WHERE asked < ?", (moment - ASKED_KEEP_DAYS * 86_400,)
        )
        conn.executemany(
            "INSERT OR IGNORE INTO guard_asked(session, memory_id, path, tool_use, asked) "
            "VALUES(?, ?, ?, ?, ?)",
            [(session, m.id, path, tool_use, moment) for m in asked],
        )


def record_allowed(conn: sqlite3.Connection, session: str, path: str, tool_use: str = "") -> None:
    """The edit of ``path`` (tool call ``tool_use``) ran: the guards its PreToolUse asked about
    are allowed for the rest of the session. Without an id, those of the file's latest ask."""
    _ensure(conn)
    which = "session = ? AND path = ? AND tool_use = ?"
    with conn:
        conn.execute(
            "INSERT OR IGNORE INTO guard_allowed(session, memory_id, path) "
            f"SELECT session, memory_id, path FROM guard_asked WHERE {which}",
            (session, path, tool_use),
        )
        conn.execute(f"DELETE FROM guard_asked WHERE {which}", (session, path, tool_use))
