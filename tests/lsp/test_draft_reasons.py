"""A supersede draft whose old memory's file is gone is refused as the command refuses it."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from recall.frontmatter import scalar
from tests.lsp.session import Session
from tests.lsp.test_draft_keeping import shown
from tests.lsp.test_drafts import NEW, fill_summary
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def test_a_supersede_draft_whose_old_memory_file_is_gone_is_not_written(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    result = await lsp.command("tether.supersede", {"memoryId": ws.gotcha})
    draft = Path(result["draft"])
    await lsp.open(draft, language="markdown")
    text = fill_summary(draft, NEW)
    await lsp.change(draft, text)
    ws.memory_file(ws.gotcha).unlink()  # purged, or taken away by a pull
    await lsp.save(draft, text)
    assert not ws.memory_file(result["id"]).exists()  # no memory with a link to nowhere
    assert "remembered in" not in shown(lsp)
    assert draft.read_text(encoding="utf-8") == text  # nothing typed lost
    problems = [d for d in lsp.diagnostics(draft) if ws.gotcha in d.message]
    assert [d.severity for d in problems] == [types.DiagnosticSeverity.Error]
    assert "delete the supersedes line" in problems[0].message
    assert problems[0].range.start.line == text.split("\n").index(
        f"supersedes: {scalar(ws.gotcha)}"
    )
    await lsp.close(draft)
    assert draft.exists()
