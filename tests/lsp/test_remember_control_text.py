"""The editor's ``tether.remember`` refuses a summary holding a control character, as the
CLI and the MCP server do: the check is the store's own."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def test_remember_refuses_an_esc_in_the_summary(lsp_one: Session, ws: Workspace) -> None:
    folder = ws.root / ".tether" / "memories"
    before = sorted(p.name for p in folder.iterdir())
    with pytest.raises(JsonRpcException) as raised:
        await lsp_one.command(
            "tether.remember", {"summary": "esc \x1b[2J", "files": ["src/store.py"]}
        )
    assert "summary must be one line of text without control characters" in str(raised.value)
    assert "\\x1b at character 5" in str(raised.value)
    assert sorted(p.name for p in folder.iterdir()) == before
