"""A supersede left half-done while another connection holds the index's SQLite write lock (a
genome refresh, an indexer thread, another editor's server; not Tether's writers' lock, which
``test_supersede_links`` holds) is kept while the lock is held, and finished at a poll once it
is let go, without another save of the draft.

While the lock is held, :func:`lsp_server.supersede_links.finish` skips the kept supersede at
its first check: ``held_elsewhere`` probes the index's write lock and finds it taken. Had it
tried, the successor (not read into the held index) would raise :class:`NotIndexed`, which is
kept too while the store is held. Its ``except sqlite3.Error`` branch for a busy index is not
met: the server's stores wait (``STORE_WAIT_SECONDS``), so their reads and writes turn a busy
index into :class:`recall.errors.StoreBusy` (``recall.store.opening.recovering``) before an
``sqlite3.Error`` could reach ``finish``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.lsp.session import Session
from tests.lsp.test_draft_keeping import messages_until, shown
from tests.lsp.test_drafts import NEW, fill_and_save
from tests.lsp.test_store_busy import ANSWER_BOUND, index_held
from tests.lsp.test_supersede_links import MESSAGES_AFTER_START, status
from tests.lsp.workspace import Workspace

LET_GO = ("could not be finished", "is not finished")
"""What the server says of a kept supersede it lets go of: ``finish``'s warning for an error,
and ``_not_indexed``'s for a successor the index does not take with the store free."""


def let_go(lsp: Session) -> list[str]:
    """The messages so far, logged or shown, saying a kept supersede was let go of."""
    every = [*lsp.client.log_messages, *lsp.client.messages]
    return [m.message for m in every if any(words in m.message for words in LET_GO)]


@pytest.mark.asyncio
async def test_a_supersede_left_half_done_by_a_held_index_is_finished_once_it_is_let_go(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    await lsp.indexing_ended()  # its refresh no longer holds the index: the test alone does
    (before,) = lsp.diagnostics(ws.store_py)
    assert before.code == ws.gotcha
    result = await lsp.command("tether.supersede", {"memoryId": ws.gotcha})
    draft = Path(result["draft"])
    with index_held(ws):
        await asyncio.wait_for(fill_and_save(lsp, draft, NEW), ANSWER_BOUND)
        kept = f"memory {ws.gotcha} is still active beside {result['id']}"
        await lsp.wait_until(lambda: kept in shown(lsp), ANSWER_BOUND)
        for _ in range(MESSAGES_AFTER_START):  # polls that find the index held
            await asyncio.wait_for(lsp.hover(ws.app_py, 0, 0), ANSWER_BOUND)
        assert status(ws, ws.gotcha) == "active"  # the index held: not marked yet
        assert let_go(lsp) == []  # kept for a later poll
        assert "is now superseded" not in shown(lsp)
    publishes = lsp.publishes[ws.store_py.as_uri()]
    await messages_until(  # no save: a message once the index is let go
        lsp,
        ws,
        lambda: status(ws, ws.gotcha) == "superseded",
        f"{ws.gotcha} was never marked superseded",
    )
    assert f"Memory {ws.gotcha} is now superseded by {result['id']}." in shown(lsp)
    assert let_go(lsp) == []
    await lsp.settle()
    assert lsp.publishes[ws.store_py.as_uri()] > publishes  # published again once done
    (after,) = lsp.diagnostics(ws.store_py)
    assert after.code == result["id"]
    assert NEW in after.message
