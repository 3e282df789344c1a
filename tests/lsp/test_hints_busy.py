"""What the hint policy chose for a publish while another connection holds the index (a genome
refresh, an import, another editor's server): the diagnostics are published and the server
answers meanwhile, and the hint's record (which memories were shown in which turn, the budget
spent) is kept and written once the index is free, without another publish."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from tests.lsp.session import Session
from tests.lsp.test_store_busy import ANSWER_BOUND, index_held
from tests.lsp.test_usage_busy import counts
from tests.lsp.workspace import Workspace


def hinted(ws: Workspace, memory_id: str) -> int:
    """How many hint marks the index holds for a memory (one per session it was shown in)."""
    conn = sqlite3.connect(ws.root / ".tether" / "index.db")
    try:
        row = conn.execute("SELECT COUNT(*) FROM hint_marks WHERE memory_id = ?", (memory_id,))
        return int(row.fetchone()[0])
    finally:
        conn.close()


NO_INDEXING = {"indexOnStart": False}
"""No start-up indexing: its end publishes every open file again, which would record the
hint by itself (and it holds the index a while, which a test holding it means to do alone)."""


@pytest.mark.init_options(NO_INDEXING)
@pytest.mark.asyncio
async def test_a_publish_while_the_index_is_held_is_recorded_once_it_is_free(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)  # the hint state is made, on the index itself
    assert hinted(ws, ws.app_gotcha) == 1
    with index_held(ws):
        await asyncio.wait_for(lsp.open(ws.store_py), ANSWER_BOUND)
        uri = ws.store_py.as_uri()
        before = lsp.publishes[uri]
        await asyncio.wait_for(lsp.change(ws.store_py, ws.store_py.read_text() + "\n"), 30)
        assert lsp.publishes[uri] > before  # published while the index is held
        [gotcha] = lsp.diagnostics(ws.store_py)
        assert gotcha.code == ws.gotcha
        start = gotcha.range.start
        hover = await asyncio.wait_for(
            lsp.hover(ws.store_py, start.line, start.character), ANSWER_BOUND
        )
        assert hover is not None  # answered while the index is held
        assert hinted(ws, ws.gotcha) == 0  # nothing could be written meanwhile
    published = sum(lsp.publishes.values())
    # free: the kept record is written with no message sent, and no publish
    await lsp.wait_until(lambda: hinted(ws, ws.gotcha) == 1, ANSWER_BOUND)
    await lsp.wait_until(lambda: counts(ws, ws.gotcha)[0] == 1, ANSWER_BOUND)
    assert sum(lsp.publishes.values()) == published
    await lsp.change(ws.store_py, ws.store_py.read_text() + "\n\n")
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]  # the same hint
    await lsp.quiet()
    assert counts(ws, ws.gotcha)[0] == 1  # shown once in this turn: counted once
    assert hinted(ws, ws.gotcha) == 1
