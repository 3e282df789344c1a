"""Open memory documents (drafts and memory files) are checked again after every store change
the server makes, as after a change on disk: a command that archives or restores the memory a
draft supersedes, another draft's save, a memory file taking back its id from a copy. Their
diagnostics never wait for the next keystroke in them."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.test_drafts import NEW, fill_summary
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


def about(lsp: Session, path: Path, memory_id: str) -> list[types.Diagnostic]:
    """The diagnostics of ``path`` that name ``memory_id``."""
    return [d for d in lsp.diagnostics(path) if memory_id in d.message]


async def _filled_draft(lsp: Session, memory_id: str, summary: str) -> Path:
    """A supersede draft of ``memory_id``, opened and typed into (not saved)."""
    result = await lsp.command("tether.supersede", {"memoryId": memory_id})
    draft = Path(result["draft"])
    await lsp.open(draft, language="markdown")
    await lsp.change(draft, fill_summary(draft, summary))
    return draft


async def test_a_draft_is_checked_again_when_its_memory_is_archived_and_restored(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    await lsp.open(ws.store_py)
    draft = await _filled_draft(lsp, ws.gotcha, NEW)
    assert not about(lsp, draft, ws.gotcha)

    await lsp.command("tether.archive", {"memoryId": ws.gotcha})
    problems = about(lsp, draft, ws.gotcha)
    assert [d.severity for d in problems] == [types.DiagnosticSeverity.Error]
    assert "archived" in problems[0].message

    await lsp.command("tether.restore", {"memoryId": ws.gotcha})
    assert not about(lsp, draft, ws.gotcha)


async def test_a_second_draft_is_checked_again_when_the_first_is_saved(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    first = await _filled_draft(lsp, ws.gotcha, NEW)
    second = await _filled_draft(lsp, ws.gotcha, "session save goes through a lock")
    assert not about(lsp, second, ws.gotcha)

    await lsp.save(first, fill_summary(first, NEW))
    problems = about(lsp, second, ws.gotcha)
    assert [d.severity for d in problems] == [types.DiagnosticSeverity.Error]
    assert "superseded" in problems[0].message


async def test_a_memory_file_taking_its_id_back_from_a_copy_is_told(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    path = ws.memory_file(ws.gotcha)
    text = path.read_text(encoding="utf-8")
    await lsp.open(path, language="markdown")
    path.rename(path.with_name("note.md"))  # as `git mv` does: the buffer is still open
    await lsp.save(path, text)  # saving the buffer writes its file again

    problems = about(lsp, path, ws.gotcha)
    assert [d.severity for d in problems] == [types.DiagnosticSeverity.Warning]
    assert "note.md" in problems[0].message and "duplicate id" in problems[0].message
    id_line = text.split("\n").index(f"id: {ws.gotcha}")
    assert problems[0].range.start.line == id_line
