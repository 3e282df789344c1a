"""The session's own bookkeeping while another connection holds the index (a genome refresh,
an import, another editor's server): a memory command asked for unprompted, which turns the
proactive hints off, and a save that ends a turn. Neither fails nor waits: the change is kept
and written once the index is free, and what is shown meanwhile already follows it."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.test_hints_busy import NO_INDEXING
from tests.lsp.test_store_busy import ANSWER_BOUND, index_held
from tests.lsp.workspace import Workspace


def session_row(ws: Workspace) -> tuple[int, int]:
    """(turns, self-serve) of the one editor session the project index knows."""
    conn = sqlite3.connect(ws.root / ".tether" / "index.db")
    try:
        turns = conn.execute("SELECT COALESCE(MAX(turns), 0) FROM sessions").fetchone()[0]
        serve = conn.execute("SELECT COALESCE(MAX(self_serve), 0) FROM hint_sessions").fetchone()
        return int(turns), int(serve[0])
    finally:
        conn.close()


@pytest.mark.init_options(NO_INDEXING)
@pytest.mark.asyncio
async def test_a_recall_asked_for_while_the_index_is_held_answers_and_is_noted_later(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)
    assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]
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
    lsp = lsp_one
    await lsp.open(ws.app_py)
    assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]
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


def dismissed(ws: Workspace, memory_id: str) -> bool:
    """Whether the index holds the memory's hint as acknowledged."""
    conn = sqlite3.connect(ws.root / ".tether" / "index.db")
    try:
        row = conn.execute("SELECT dismissed FROM hint_marks WHERE memory_id = ?", (memory_id,))
        found = row.fetchone()
        return bool(found and found[0])
    finally:
        conn.close()


@pytest.mark.init_options(NO_INDEXING)
@pytest.mark.asyncio
async def test_a_hint_marked_followed_while_the_index_is_held_steps_aside_and_is_noted_later(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)
    assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]
    with index_held(ws):
        answer = await asyncio.wait_for(
            lsp.command("tether.markFollowed", {"memoryId": ws.app_gotcha}), ANSWER_BOUND
        )
        assert answer["memoryId"] == ws.app_gotcha
        assert lsp.diagnostics(ws.app_py) == []  # acknowledged: hidden for this turn
        assert not dismissed(ws, ws.app_gotcha)
    await lsp.wait_until(lambda: dismissed(ws, ws.app_gotcha), ANSWER_BOUND)
