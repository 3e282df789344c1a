"""A running language server sees what the MCP server writes: the files are the shared truth."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.session import Session
from tests.lsp.workspace import GOTCHA, Workspace, build
from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio

MCP_GOTCHA = "load_session must not follow symlinks out of the data folder"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    """The language-server tests' repository, with its memories."""
    return build(tmp_path / "repo")


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "recall", "lsp"])
)
async def editor(lsp_client: LanguageClient, ws: Workspace) -> AsyncIterator[None]:
    """``tether lsp`` with the repository open, as Neovim 0.7 opens it (no file watchers, so
    the server has to notice the new memory file by itself)."""
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim@v0.7.0"),
            client_info=types.ClientInfo(name="Neovim"),
            root_uri=ws.root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=ws.root.as_uri(), name="repo")],
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_a_gotcha_written_over_mcp_is_published_by_the_language_server(
    editor: LanguageClient, ws: Workspace
) -> None:
    lsp = Session(editor, "neovim@v0.7.0")
    await lsp.open(ws.store_py)
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
    async with mcp_client(ws.root) as client:
        written = await call(
            client,
            "memory_write",
            summary=MCP_GOTCHA,
            category="gotcha",
            files=["src/store.py"],
        )
    await lsp.settle()  # the next message the server handles looks at the memory folders
    codes = [d.code for d in lsp.diagnostics(ws.store_py)]
    assert sorted(codes) == sorted([ws.gotcha, written["id"]])
    messages = [d.message for d in lsp.diagnostics(ws.store_py)]
    assert any(MCP_GOTCHA in m for m in messages) and any(GOTCHA in m for m in messages)
