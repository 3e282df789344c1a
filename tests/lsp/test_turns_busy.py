"""The session's own bookkeeping while another connection holds the index (a genome refresh,
an import, another editor's server): a memory command asked for unprompted, which turns the
proactive hints off, a save that ends a turn, and a hint marked followed. None fails or waits:
the change is kept and written once the index is free, and what is shown meanwhile already
follows it."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.test_hints_busy import NO_INDEXING
from tests.lsp.test_store_busy import ANSWER_BOUND, index_held
from tests.lsp.workspace import Workspace


def _read(ws: Workspace, sql: str, *args: object) -> int:
    """The one number ``sql`` reads from the project index (0 for none)."""
    conn = sqlite3.connect(ws.root / ".tether" / "index.db")
    try:
        row = conn.execute(sql, args).fetchone()
        return int(row[0] or 0) if row else 0
    finally:
        conn.close()


def session_row(ws: Workspace) -> tuple[int, int]:
    """(turns, self-serve) of the one editor session the project index knows."""
    turns = _read(ws, "SELECT MAX(turns) FROM sessions")
    return turns, _read(ws, "SELECT MAX(self_serve) FROM hint_sessions")


def dismissed(ws: Workspace, memory_id: str) -> bool:
    """Whether the index holds the memory's hint as acknowledged."""
    return bool(_read(ws, "SELECT dismissed FROM hint_marks WHERE memory_id = ?", memory_id))


async def hinted_session(lsp: Session, ws: Workspace) -> Session:
    """The session with ``src/app.py`` open and its gotcha hinted, recorded on a free index."""
    await lsp.open(ws.app_py)
    assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]
    return lsp


@pytest.mark.init_options(NO_INDEXING)
@pytest.mark.asyncio
async def test_a_recall_asked_for_while_the_index_is_held_answers_and_is_noted_later(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = await hinted_session(lsp_one, ws)
    assert session_row(ws)[1] == 0
    with index_held(ws):
        answer = await asyncio.wait_for(
            lsp.command("tether.recall", {"uri": ws.app_py.as_uri()}), ANSWER_BOUND
        )
        assert ws.app_gotcha in [hit["id"] for hit in answer["results"]]
        # asked for unprompted: the proactive hint steps aside at once, as on a free index
        assert lsp.diagnostics(ws.app_py) == []
        assert session_row(ws)[1] == 0  # nothing could be written meanwhile
    await lsp.wait_until(lambda: session_row(ws)[1] == 1, ANSWER_BOUND)


@pytest.mark.init_options(NO_INDEXING)
@pytest.mark.asyncio
async def test_a_save_that_ends_a_turn_while_the_index_is_held_is_counted_once_it_is_free(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = await hinted_session(lsp_one, ws)
    turns = session_row(ws)[0]
    with index_held(ws):
        text = ws.app_py.read_text() + "\n# edited\n"
        await asyncio.wait_for(lsp.change(ws.app_py, text), ANSWER_BOUND)
        await asyncio.wait_for(lsp.save(ws.app_py, text), ANSWER_BOUND)
        # the next turn has begun: the gotcha hinted in the last one is quiet now (rule 2)
        await asyncio.wait_for(lsp.change(ws.app_py, text + "\n"), ANSWER_BOUND)
        assert lsp.diagnostics(ws.app_py) == []
        assert session_row(ws)[0] == turns
    await lsp.wait_until(lambda: session_row(ws)[0] == turns + 1, ANSWER_BOUND)
    assert not [m.message for m in lsp.client.log_messages if m.type == types.MessageType.Error]


@pytest.mark.init_options(NO_INDEXING)
@pytest.mark.asyncio
async def test_a_hint_marked_followed_while_the_index_is_held_steps_aside_and_is_noted_later(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = await hinted_session(lsp_one, ws)
    with index_held(ws):
        answer = await asyncio.wait_for(
            lsp.command("tether.markFollowed", {"memoryId": ws.app_gotcha}), ANSWER_BOUND
        )
        assert answer["memoryId"] == ws.app_gotcha
        assert lsp.diagnostics(ws.app_py) == []  # acknowledged: hidden for this turn
        assert not dismissed(ws, ws.app_gotcha)
    await lsp.wait_until(lambda: dismissed(ws, ws.app_gotcha), ANSWER_BOUND)
