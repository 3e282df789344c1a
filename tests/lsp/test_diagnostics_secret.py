"""Agents read the language server's diagnostics as context (OpenCode passes its agent the
errors, Claude Code wraps them in a block of its own): a credential written by hand into a
memory file is masked there as in an injection."""

from __future__ import annotations

import pytest

from tests.lsp.session import Session
from tests.lsp.workspace import APP_GOTCHA, Workspace
from tests.test_secrets_in_memory_files import AWS_KEY

pytestmark = pytest.mark.asyncio


async def test_a_diagnostic_masks_a_credential_of_the_memory_file(
    lsp_one: Session, ws: Workspace
) -> None:
    memory = ws.memory_file(ws.app_gotcha)
    text = memory.read_text(encoding="utf-8")
    memory.write_text(text.replace(APP_GOTCHA, f"{APP_GOTCHA} with key {AWS_KEY}"))
    await lsp_one.open(ws.app_py)
    (found,) = lsp_one.diagnostics(ws.app_py)
    assert found.message.startswith(
        f'gotcha "{APP_GOTCHA} with key AKIAIOSF…[20 chars]" [{ws.app_gotcha}]'
    )
    assert AWS_KEY[8:] not in found.message
    assert AWS_KEY in memory.read_text(encoding="utf-8")  # the file as the person wrote it
