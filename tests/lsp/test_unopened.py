"""Diagnostics go only to documents the client has open: a command, a code action or a save
naming another file reads it from disk without the server publishing for it from then on."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def _republish(lsp: Session, ws: Workspace) -> None:
    """A memory changed: the server publishes again for every document it publishes for."""
    await lsp.command("tether.pin", {"memoryId": ws.decision, "fromHint": True})
    await lsp.command("tether.unpin", {"memoryId": ws.decision, "fromHint": True})


async def test_files_never_opened_or_closed_get_no_diagnostics(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    listed = await lsp.command("tether.list", {"uri": ws.app_py.as_uri()})
    assert ws.app_gotcha in [m["id"] for m in listed["memories"]]  # read from disk all the same
    await lsp.command("tether.recall", {"uri": ws.app_py.as_uri(), "fromHint": True})
    await lsp.save(ws.notes)  # a didSave for a document that was never opened
    await lsp.open(ws.app_py)
    await lsp.close(ws.app_py)
    everywhere = types.Range(types.Position(0, 0), types.Position(0, 0))
    assert await lsp.actions(ws.app_py, everywhere)  # still offered on the closed file
    before = sum(lsp.publishes.values())
    await _republish(lsp, ws)
    assert lsp.publishes[ws.store_py.as_uri()] > 0  # the open document was published again
    assert lsp.diagnostics(ws.app_py) == []
    published_for = {p.uri for p in lsp.published[before:]}
    assert published_for == {ws.store_py.as_uri()}
    assert lsp.publishes[ws.notes.as_uri()] == 0
