"""A supersede left half-done (its successor written from the draft, the memory it replaces not
marked yet: the store was busy, or the server stopped between the two steps) is finished when
the server next can, without another save of the draft: at the first poll once the store is
free, and at start-up for one a stopped server left behind."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from recall import frontmatter
from tests.lsp.session import Session
from tests.lsp.test_draft_keeping import shown
from tests.lsp.test_drafts import NEW, fill_and_save
from tests.lsp.test_hints_busy import NO_INDEXING
from tests.lsp.test_outside_changes import MESSAGES_AFTER
from tests.lsp.test_store_busy import ANSWER_BOUND, held
from tests.lsp.workspace import Workspace

pytestmark = [pytest.mark.asyncio, pytest.mark.init_options(NO_INDEXING)]

SUCCESSOR = "c0ffee11"
"""The id of the successor a stopped server left behind (an id no memory of the test store
has)."""


def status(ws: Workspace, memory_id: str) -> str:
    """A memory's status as its file says."""
    fields = frontmatter.parse(ws.memory_file(memory_id).read_text(), memory_id).fields
    return str(fields.get("status", "active"))


async def finished(lsp: Session, ws: Workspace) -> None:
    """Send messages until the old memory is marked superseded: the first one that finds the
    store free marks it (the session's own background work may take the store a moment)."""
    for _ in range(MESSAGES_AFTER):
        await lsp.hover(ws.app_py, 0, 0)
        if status(ws, ws.gotcha) == "superseded":
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"{ws.gotcha} was never marked superseded")


async def test_a_supersede_the_busy_store_left_half_done_is_finished_once_it_is_free(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.supersede", {"memoryId": ws.gotcha})
    draft = Path(result["draft"])
    with held(ws):
        await asyncio.wait_for(fill_and_save(lsp, draft, NEW), ANSWER_BOUND)
        said = f"memory {ws.gotcha} is still active beside {result['id']}"
        await lsp.wait_until(lambda: said in shown(lsp), ANSWER_BOUND)
        await asyncio.wait_for(lsp.hover(ws.app_py, 0, 0), ANSWER_BOUND)
        assert status(ws, ws.gotcha) == "active"  # the store held: not marked yet
    await finished(lsp, ws)  # no save: a message once the store is free
    assert f"Memory {ws.gotcha} is now superseded by {result['id']}." in shown(lsp)
    assert NEW in ws.memory_file(result["id"]).read_text(encoding="utf-8")
    assert draft.exists()  # open in the editor: left to its close
    await lsp.close(draft)
    assert not draft.exists()  # nothing of the person's left in it


@pytest.fixture
def left_half_done(ws: Workspace) -> Path:
    """What a server stopped between a supersede's two steps leaves: the draft, and the same
    text written as the successor's memory file; the old memory still active."""
    text = f"---\ncategory: gotcha\nfiles:\n  - src/store.py\nsupersedes: {ws.gotcha}\n---\n{NEW}\n"
    drafts = ws.root / ".tether" / "drafts"
    drafts.mkdir(exist_ok=True)
    draft = drafts / f"{SUCCESSOR}.md"
    draft.write_text(text, encoding="utf-8")
    ws.memory_file(SUCCESSOR).write_text(text, encoding="utf-8")
    return draft


async def test_a_supersede_a_stopped_server_left_half_done_is_finished_at_start_up(
    left_half_done: Path, lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await finished(lsp, ws)
    assert f"Memory {ws.gotcha} is now superseded by {SUCCESSOR}." in shown(lsp)
    assert not left_half_done.exists()  # its work done, and never opened here
    shown_now = await lsp.command("tether.show", {"memoryId": ws.gotcha})
    assert shown_now["superseded_by"] == SUCCESSOR
