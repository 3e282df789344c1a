"""Documents whose URI the client percent-encodes (a space, a non-ASCII letter in the path):
the server reads the editor's unsaved text for them, as for any other document."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp import workspace
from tests.lsp.session import Session
from tests.lsp.workspace import GOTCHA

pytestmark = pytest.mark.asyncio


@pytest.fixture
def ws(tmp_path: Path) -> workspace.Workspace:
    """The test repository, in a folder whose name needs percent-encoding in a URI."""
    return workspace.build(tmp_path / "my repö")


async def test_unsaved_edits_move_the_anchored_gotcha(
    lsp: Session, ws: workspace.Workspace
) -> None:
    assert "%20" in ws.store_py.as_uri() and "%C3%B6" in ws.store_py.as_uri()
    await lsp.open(ws.store_py)
    (before,) = lsp.diagnostics(ws.store_py)
    line = ws.store_py.read_text().splitlines().index("def save_session(path, data):")
    assert before.range.start.line == line
    await lsp.type(ws.store_py, (0, 0), (0, 0), "# one\n# two\n# three\n")  # never saved
    (moved,) = lsp.diagnostics(ws.store_py)
    assert moved.code == ws.gotcha
    assert moved.range.start.line == line + 3
    card = await lsp.hover(ws.store_py, line + 3, moved.range.start.character)
    assert card is not None
    assert isinstance(card.contents, types.MarkupContent) and GOTCHA in card.contents.value


async def test_a_localhost_uri_is_the_same_file(lsp_one: Session, ws: workspace.Workspace) -> None:
    """RFC 8089: ``file://localhost/`` names a file of this machine, as ``file:///`` does."""
    uri = ws.store_py.as_uri().replace("file:///", "file://localhost/", 1)
    lsp_one.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri, "python", 1, ws.store_py.read_text())
        )
    )
    await lsp_one.settle()
    assert [d.code for d in lsp_one.client.diagnostics.get(uri, [])] == [ws.gotcha]
    recalled = await lsp_one.command("tether.recall", {"uri": uri})
    assert ws.gotcha in [r["id"] for r in recalled["results"]]
