"""A draft is removed only when nothing of the person's would go with it, judged from what the
editor holds too (edits not saved keep it, at a close as at shutdown); a supersede draft whose
old memory's file is gone is refused as the command refuses it; and a kept draft is told
kept with the reason it was, and what to do about it, in the log and on screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from recall.frontmatter import scalar
from tests.lsp.session import Session
from tests.lsp.test_draft_keeping import shown
from tests.lsp.test_drafts import NEW, client_ended, fill_and_save, fill_summary
from tests.lsp.workspace import Workspace

__all__ = ["client_ended"]  # the fixture, used here by name

pytestmark = pytest.mark.asyncio


def logged(lsp: Session) -> str:
    """Every message logged to the client so far (window/logMessage), one per line."""
    return "\n".join(m.message for m in lsp.client.log_messages)


async def test_a_draft_with_edits_not_saved_outlives_shutdown(
    client_ended: LanguageClient, ws: Workspace
) -> None:
    lsp: Session = client_ended.tether_session  # type: ignore[attr-defined]
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(result["draft"])
    made = draft.read_text(encoding="utf-8")
    await lsp.open(draft, language="markdown")
    await lsp.change(draft, fill_summary(draft, NEW))  # typed, not saved yet
    await lsp.client.shutdown_session()
    assert draft.read_text(encoding="utf-8") == made  # still there for the editor to save
    assert f"the draft {draft} is kept: it has edits not saved" in logged(lsp)
    # shown too, before the reply to shutdown (a client may read nothing after it)
    assert f"the draft {draft} is kept: it has edits not saved" in shown(lsp)


async def test_a_draft_closed_with_edits_not_saved_is_kept_and_said_so(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(result["draft"])
    made = draft.read_text(encoding="utf-8")
    await lsp.open(draft, language="markdown")
    await lsp.change(draft, fill_summary(draft, NEW))
    await lsp.close(draft)
    assert draft.read_text(encoding="utf-8") == made
    assert f"the draft {draft} is kept: it was closed with edits not saved" in shown(lsp)


async def test_a_draft_opened_and_closed_untouched_still_goes(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(result["draft"])
    await lsp.open(draft, language="markdown")
    text = fill_summary(draft, NEW)
    await lsp.change(draft, text)
    await lsp.change(draft, draft.read_text(encoding="utf-8"))  # typed, then undone
    await lsp.close(draft)
    assert not draft.exists()


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
    assert f"the draft {draft} is kept: line" in shown(lsp)


async def test_a_draft_kept_because_its_memory_changed_says_so_when_closed(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft, memory = Path(result["draft"]), ws.memory_file(result["id"])
    await fill_and_save(lsp, draft, NEW)
    await lsp.command("tether.pin", {"memoryId": result["id"]})
    edited = draft.read_text(encoding="utf-8") + "\nwhy it matters\n"
    await lsp.change(draft, edited)
    await lsp.save(draft, edited)  # refused: the memory file changed since
    await lsp.close(draft)
    assert draft.read_text(encoding="utf-8") == edited
    said = shown(lsp)
    assert f"the draft {draft} is kept: its memory file {memory} changed since" in said
    assert "finish its summary" not in said


async def test_a_supersede_draft_of_a_memory_superseded_since_says_so_when_closed(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    result = await lsp.command("tether.supersede", {"memoryId": ws.gotcha})
    draft = Path(result["draft"])
    other = await lsp.command(
        "tether.supersede", {"memoryId": ws.gotcha, "summary": "another replacement"}
    )
    await fill_and_save(lsp, draft, NEW)
    assert not ws.memory_file(result["id"]).exists()
    await lsp.close(draft)
    assert draft.exists()
    said = shown(lsp)
    assert f"the draft {draft} is kept: line" in said
    assert f"{ws.gotcha}, which is superseded by {other['id']}" in said
    assert "finish its summary" not in said
