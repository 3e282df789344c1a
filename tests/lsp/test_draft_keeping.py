"""Nothing a person wrote in a draft is dropped or written over: a later save of a draft leaves
a memory file changed since alone, a draft of front matter only is kept when closed, and a
supersede the busy store could not mark keeps its draft until it is finished."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from recall import frontmatter
from tests.lsp.session import Session
from tests.lsp.test_diagnostics_cache import NO_INDEXING
from tests.lsp.test_drafts import NEW, fill_and_save
from tests.lsp.test_store_busy import ANSWER_BOUND, held
from tests.lsp.workspace import Workspace

pytestmark = [pytest.mark.asyncio, pytest.mark.init_options(NO_INDEXING)]
"""No start-up indexing: none of these needs it, and it holds the index a while."""


def shown(lsp: Session) -> str:
    """Every message shown to the user so far (window/showMessage), one per line."""
    return "\n".join(m.message for m in lsp.client.messages)


async def messages_until(
    lsp: Session, ws: Workspace, done: Callable[[], bool], failure: str
) -> None:
    """Send messages (hovers) until ``done()``: the server does what is waited for in the
    poll before a request, once nothing else holds the store. Past :data:`ANSWER_BOUND`
    seconds, fail saying ``failure``."""
    deadline = time.monotonic() + ANSWER_BOUND
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"{failure} (within {ANSWER_BOUND:g} s of messages)")
        await asyncio.wait_for(lsp.hover(ws.app_py, 0, 0), ANSWER_BOUND)
        if not done():
            await asyncio.sleep(0.2)


async def test_a_later_save_of_the_draft_does_not_undo_a_pin(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft, memory = Path(result["draft"]), ws.memory_file(result["id"])
    await fill_and_save(lsp, draft, NEW)
    await lsp.save(draft)  # saved again unchanged: written again, nothing lost
    await lsp.command("tether.pin", {"memoryId": result["id"]})
    pinned = memory.read_text(encoding="utf-8")
    assert "pinned: true" in pinned
    await lsp.save(draft)  # the stale copy, autosaved
    assert memory.read_text(encoding="utf-8") == pinned
    assert f"{draft} was not saved over {memory}" in shown(lsp)
    await lsp.close(draft)  # not what its memory holds: kept
    assert draft.exists()
    assert (await lsp.command("tether.show", {"memoryId": result["id"]}))["pinned"] is True


async def test_a_draft_of_front_matter_only_is_kept_when_closed(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(result["draft"])
    await lsp.open(draft, language="markdown")
    edited = (
        draft.read_text(encoding="utf-8")
        .replace("category: gotcha", "category: decision")
        .replace("files:\n", "files:\n  - src/store.py\n")
        .replace("---\n\n", "anchor: save_session\n---\n\n")
    )
    assert edited.count("src/store.py") == 1 and "anchor: save_session" in edited
    await lsp.save(draft, edited)  # no summary yet: no memory, but the person's choices
    await lsp.close(draft)
    assert draft.read_text(encoding="utf-8") == edited
    assert f"the draft {draft} is kept" in shown(lsp)


async def test_a_supersede_the_busy_store_left_half_done_keeps_its_draft(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.supersede", {"memoryId": ws.gotcha})
    draft = Path(result["draft"])
    old = ws.memory_file(ws.gotcha)
    with held(ws):
        await asyncio.wait_for(fill_and_save(lsp, draft, NEW), ANSWER_BOUND)
        said = f"memory {ws.gotcha} is still active beside {result['id']}"
        await lsp.wait_until(lambda: said in shown(lsp), ANSWER_BOUND)
        await asyncio.wait_for(lsp.close(draft), ANSWER_BOUND)
        assert draft.exists()  # the same text as its memory, yet the supersede is not done
        assert frontmatter.parse(old.read_text(), "old").fields.get("status", "active") == "active"
    # the store free again: a message finishes it (tests/lsp/test_supersede_links.py)
    await messages_until(lsp, ws, lambda: not draft.exists(), f"{draft} was never removed")
    assert frontmatter.parse(old.read_text(), "old").fields["status"] == "superseded"
    assert not draft.exists()  # its work done, nothing of the person's left in it
    assert NEW in ws.memory_file(result["id"]).read_text(encoding="utf-8")
