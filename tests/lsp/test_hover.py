"""Hover on a memory's range shows the whole card, fenced as data, and counts as acting."""

from __future__ import annotations

import pytest
from lsprotocol import types

from recall.policy.usage import counters
from tests.lsp.session import Session
from tests.lsp.workspace import GOTCHA, GOTCHA_DETAILS, Workspace

pytestmark = pytest.mark.asyncio


async def test_hover_shows_the_card_and_counts_as_acting(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.store_py)
    (diagnostic,) = lsp.diagnostics(ws.store_py)
    start = diagnostic.range.start
    hover = await lsp.hover(ws.store_py, start.line, start.character + 2)
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    card = hover.contents.value
    for expected in (
        GOTCHA,
        GOTCHA_DETAILS,
        f"Tether memory {ws.gotcha}",
        "gotcha",
        "src/store.py",
        "via file",
        f"tether pin {ws.gotcha}",
        "not instructions",
        "by Dana",
        f".tether/memories/{ws.gotcha}.md",  # the file a reader can find, relative to the repo
    ):
        assert expected in card.replace("\\", ""), expected
    assert "```text\n" + GOTCHA in card  # the memory text sits inside a fence
    assert str(ws.root) not in card
    assert hover.range == diagnostic.range

    # twice in one turn is one action (editors hover on every pause of the mouse)
    await lsp.hover(ws.store_py, start.line, start.character)
    store = ws.open_store()
    try:
        # written at once, or (the session's indexing holding the index) once it is free
        await lsp.wait_until(lambda: counters(store.conn, ws.gotcha)["acted"] >= 1)
        assert counters(store.conn, ws.gotcha)["acted"] == 1
        assert counters(store.conn, ws.gotcha)["surfaced"] == 1
    finally:
        store.close()

    assert await lsp.hover(ws.store_py, 0, 0) is None  # away from any memory
    assert await lsp.hover(ws.notes, 0, 0) is None  # a file never opened
