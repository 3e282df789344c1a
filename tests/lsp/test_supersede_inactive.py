"""A supersede whose old memory stops being active before its draft is saved (archived,
superseded by another) is refused as the command refuses it: the draft says why before the
save, the save writes nothing and keeps the draft, and it goes through once the old memory is
restored. A memory file saved naming an inactive memory it supersedes is told the old one was
not marked, never skipped without a word."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from recall.frontmatter import scalar
from tests.lsp.session import Session
from tests.lsp.test_draft_keeping import shown
from tests.lsp.test_drafts import NEW, fill_and_save
from tests.lsp.test_supersede_links import status
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def test_a_draft_superseding_a_memory_archived_since_is_not_written(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    result = await lsp.command("tether.supersede", {"memoryId": ws.gotcha})
    draft = Path(result["draft"])
    await lsp.command("tether.archive", {"memoryId": ws.gotcha})
    await fill_and_save(lsp, draft, NEW)
    problems = [d for d in lsp.diagnostics(draft) if ws.gotcha in d.message]
    assert [d.severity for d in problems] == [types.DiagnosticSeverity.Error]
    assert "archived" in problems[0].message and "tether.restore" in problems[0].message
    assert problems[0].range.start.line == 1 + draft.read_text().split("\n")[1:].index(
        f"supersedes: {scalar(ws.gotcha)}"
    )
    assert not ws.memory_file(result["id"]).exists()  # nothing written
    assert NEW in draft.read_text(encoding="utf-8")  # nothing typed lost
    assert "remembered in" not in shown(lsp)

    await lsp.command("tether.restore", {"memoryId": ws.gotcha})
    await lsp.change(draft, draft.read_text(encoding="utf-8"))
    assert not [d for d in lsp.diagnostics(draft) if ws.gotcha in d.message]
    await lsp.save(draft)
    assert NEW in ws.memory_file(result["id"]).read_text(encoding="utf-8")
    assert status(ws, ws.gotcha) == "superseded"
    assert not [d for d in lsp.diagnostics(draft) if ws.gotcha in d.message]  # its own: fine


async def test_a_memory_file_naming_an_archived_memory_it_supersedes_is_told(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    await lsp.command("tether.archive", {"memoryId": ws.gotcha})
    path = ws.memory_file(ws.decision)
    text = path.read_text(encoding="utf-8").replace("---\n", f"---\nsupersedes: {ws.gotcha}\n", 1)
    await lsp.open(path, text, language="markdown")
    problems = [d for d in lsp.diagnostics(path) if ws.gotcha in d.message]
    assert [d.severity for d in problems] == [types.DiagnosticSeverity.Warning]
    await lsp.save(path, text)
    assert f"memory {ws.gotcha} was not marked superseded by {ws.decision}" in shown(lsp)
    assert status(ws, ws.gotcha) == "archived"


async def test_archiving_a_replacement_says_the_old_memory_stays_out_of_recall(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    result = await lsp.command("tether.supersede", {"memoryId": ws.gotcha})
    await fill_and_save(lsp, Path(result["draft"]), NEW)
    assert status(ws, ws.gotcha) == "superseded"
    archived = await lsp.command("tether.archive", {"memoryId": result["id"]})
    assert archived["leftSuperseded"] == ws.gotcha
    assert f"{ws.gotcha} stays superseded, out of recall" in shown(lsp)


async def test_superseding_a_replaced_memory_again_names_its_replacement(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    first = await lsp.command(
        "tether.supersede", {"memoryId": ws.gotcha, "summary": "save goes through os.replace"}
    )
    with pytest.raises(Exception, match=f"memory {ws.gotcha} is superseded by {first['id']}"):
        await lsp.command(
            "tether.supersede", {"memoryId": ws.gotcha, "summary": "save renames a temp file"}
        )
    assert status(ws, ws.gotcha) == "superseded"
