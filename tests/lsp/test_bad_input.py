"""Bad input gets a logged warning and an empty answer; the server keeps serving."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


def warned(lsp: Session, text: str) -> bool:
    """Whether the server logged a warning containing ``text``."""
    return any(
        text in m.message and m.type == types.MessageType.Warning for m in lsp.client.log_messages
    )


async def test_untitled_outside_binary_documents(
    lsp_one: Session, ws: Workspace, tmp_path: Path
) -> None:
    lsp = lsp_one
    untitled = "untitled:Untitled-1"
    lsp.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=untitled, language_id="python", version=1, text="x = 1\n")
        )
    )
    await lsp.settle()
    assert untitled not in lsp.client.diagnostics
    assert warned(lsp, "not a file on disk")
    hover = await lsp.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(untitled), types.Position(0, 0))
    )
    assert hover is None
    assert (
        await lsp.actions(
            Path("/nonexistent"), types.Range(types.Position(0, 0), types.Position(0, 0))
        )
        == []
    )

    outside = tmp_path / "elsewhere.py"
    outside.write_text("print('hi')\n")
    await lsp.open(outside)
    assert outside.as_uri() not in lsp.client.diagnostics
    assert warned(lsp, "outside every workspace root")

    await lsp.open(ws.store_py, text="def save_session():\x00\x01 pass\n")
    assert lsp.diagnostics(ws.store_py) == []
    assert warned(lsp, "looks binary")

    # the server is still serving: a real change gets the gotcha back
    await lsp.change(ws.store_py, ws.store_py.read_text())
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]


async def test_malformed_requests_get_errors_not_a_crash(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    with pytest.raises(Exception, match="not defined"):
        await lsp.command("tether.nope")
    hover = await lsp.hover(ws.store_py, 10_000, 10_000)  # far past the end of a closed file
    assert hover is None
    with pytest.raises(Exception):  # noqa: B017 - any error response will do
        await lsp.client.protocol.send_request_async("tether/unknown", {"x": 1})
    await lsp.open(ws.store_py)
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]


@pytest.mark.init_options({"maxDocumentChars": 40})
async def test_huge_documents_are_skipped(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    assert lsp.diagnostics(ws.store_py) == []
    assert warned(lsp, "over maxDocumentChars")
