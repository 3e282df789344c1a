"""A repository's settings may lower a limit of the language server but not raise it above its
default: a cloned repository must not make the server search a huge generated file on every
keystroke. The editor's own settings may set any valid value."""

from __future__ import annotations

import pytest
from lsprotocol import types

from recall.server_settings import MAX_DOCUMENT_CHARS
from tests.lsp.session import Session
from tests.lsp.workspace import STORE_PY, Workspace

pytestmark = pytest.mark.asyncio

HUGE = 10**15

# the stored file's text, padded past the default limit with a comment the anchors are not in
OVERSIZED = STORE_PY + "#" * (MAX_DOCUMENT_CHARS + 1) + "\n"


async def _reread_settings(lsp: Session) -> None:
    """Make the server read the repository's settings files again (Neovim 0.7 pushes)."""
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await lsp.settle()


async def test_a_repository_cannot_raise_max_document_chars(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    config = ws.root / ".tether" / "config.toml"
    config.write_text(f"warm_files = 10\nmax_document_chars = {HUGE}\n", encoding="utf-8")
    await _reread_settings(lsp)
    await lsp.open(ws.store_py, OVERSIZED)
    assert lsp.diagnostics(ws.store_py) == []
    notice = (
        f"tether: {config}:2: max_document_chars = {HUGE} not taken: a repository's settings "
        f"may lower it but not raise it above its default ({MAX_DOCUMENT_CHARS:,})"
    )
    shown = [m.message for m in lsp.client.messages if m.type == types.MessageType.Warning]
    logged = [m.message for m in lsp.client.log_messages if m.type == types.MessageType.Warning]
    assert [m for m in shown if m.startswith(notice)] == [m for m in logged if notice in m]
    [said] = [m for m in shown if m.startswith(notice)]
    assert "set maxDocumentChars in your editor's settings" in said
    assert any("over maxDocumentChars (2000000)" in m for m in logged)


async def test_a_repository_may_lower_max_document_chars(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    (ws.root / ".tether" / "config.toml").write_text("max-document-chars = 40\n", "utf-8")
    await _reread_settings(lsp)
    await lsp.open(ws.store_py)
    assert lsp.diagnostics(ws.store_py) == []
    assert not any("not taken" in m.message for m in lsp.client.messages)


@pytest.mark.init_options({"maxDocumentChars": HUGE})
async def test_the_editors_settings_may_raise_max_document_chars(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py, OVERSIZED)
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
