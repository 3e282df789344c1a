"""A supersede this server left half-done (its successor written from the draft, the memory it
replaces not marked: the store was busy) is finished at the first poll once the store is free,
without another save of the draft. A draft an earlier server left on disk is never acted on at
start-up: its supersede may have been undone on purpose since (``tether restore``). A successor
the index never takes, the store free, is said once and no longer tried."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from recall import frontmatter
from recall.frontmatter import scalar
from tests.conftest import run_tether
from tests.lsp.raw import raw_server
from tests.lsp.session import Session
from tests.lsp.test_draft_keeping import messages_until, shown
from tests.lsp.test_drafts import NEW, fill_and_save, fill_summary
from tests.lsp.test_hints_busy import NO_INDEXING
from tests.lsp.test_store_busy import ANSWER_BOUND, held
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.init_options(NO_INDEXING)

MESSAGES_AFTER_START = 5
"""Messages a started server gets before a test checks it left a memory alone: the first poll
would have acted already (start-up indexing is off, so the store is free from the start)."""


def status(ws: Workspace, memory_id: str) -> str:
    """A memory's status as its file says."""
    fields = frontmatter.parse(ws.memory_file(memory_id).read_text(), memory_id).fields
    return str(fields.get("status", "active"))


def test_the_messages_after_start_are_pinned() -> None:
    assert MESSAGES_AFTER_START == 5


@pytest.mark.asyncio
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
    await messages_until(  # no save: a message once the store is free
        lsp,
        ws,
        lambda: status(ws, ws.gotcha) == "superseded",
        f"{ws.gotcha} was never marked superseded",
    )
    assert f"Memory {ws.gotcha} is now superseded by {result['id']}." in shown(lsp)
    assert NEW in ws.memory_file(result["id"]).read_text(encoding="utf-8")
    assert draft.exists()  # open in the editor: left to its close
    await lsp.close(draft)
    assert not draft.exists()  # nothing of the person's left in it


def _until(check: Callable[[], bool], what: str) -> None:
    """Fail with ``what`` unless ``check()`` is true within :data:`ANSWER_BOUND` seconds."""
    deadline = time.monotonic() + ANSWER_BOUND
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        time.sleep(0.1)


@pytest.fixture
def restored_after_a_crash(ws: Workspace) -> Iterator[Path]:
    """A supersede finished by a server that was then killed (its draft left on disk, as a
    crash leaves it), and the old memory brought back with ``tether restore`` since."""
    with raw_server(ws.root) as server:
        server.response(
            server.request(
                "initialize",
                {
                    "processId": None,
                    "rootUri": ws.root.as_uri(),
                    "capabilities": {},
                    "initializationOptions": NO_INDEXING,
                },
            )
        )
        server.notify("initialized", {})
        supersede = {"command": "tether.supersede", "arguments": [{"memoryId": ws.gotcha}]}
        result = server.response(server.request("workspace/executeCommand", supersede))["result"]
        draft = Path(result["draft"])
        text = fill_summary(draft, NEW)
        draft.write_text(text, encoding="utf-8")  # the editor writes it, then says so
        document = {"uri": draft.as_uri(), "languageId": "markdown", "version": 1, "text": text}
        server.notify("textDocument/didOpen", {"textDocument": document})
        server.notify("textDocument/didSave", {"textDocument": {"uri": draft.as_uri()}})

        def marked() -> bool:
            server.barrier()
            return status(ws, ws.gotcha) == "superseded"

        _until(marked, f"the first server never marked {ws.gotcha} superseded")
        server.proc.kill()  # no shutdown: the draft stays on disk
        server.proc.wait()
    assert draft.exists()
    restored = run_tether("restore", ws.gotcha, cwd=ws.root)
    assert restored.code == 0, restored
    assert status(ws, ws.gotcha) == "active"
    # the restore unlinked the successor; the draft left on disk still names the old memory
    assert f"supersedes: {scalar(ws.gotcha)}" not in ws.memory_file(result["id"]).read_text(
        encoding="utf-8"
    )
    assert f"supersedes: {scalar(ws.gotcha)}" in draft.read_text(encoding="utf-8")
    yield draft


@pytest.mark.asyncio
async def test_a_restore_after_a_crash_is_not_undone_at_the_next_start(
    restored_after_a_crash: Path, lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    for _ in range(MESSAGES_AFTER_START):
        await asyncio.wait_for(lsp.hover(ws.app_py, 0, 0), ANSWER_BOUND)
        await asyncio.sleep(0.2)
    assert status(ws, ws.gotcha) == "active"  # the restore stands
    assert "is now superseded" not in shown(lsp)
    assert restored_after_a_crash.exists()  # a file of the person's: left alone


@pytest.mark.asyncio
async def test_a_successor_the_index_never_takes_is_said_once_and_let_go(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.supersede", {"memoryId": ws.gotcha})
    draft = Path(result["draft"])
    memory = ws.memory_file(result["id"])
    with held(ws):
        await asyncio.wait_for(fill_and_save(lsp, draft, NEW), ANSWER_BOUND)
        said = f"memory {ws.gotcha} is still active beside {result['id']}"
        await lsp.wait_until(lambda: said in shown(lsp), ANSWER_BOUND)
        # the same text, through a link: a store reads no memory file that is a link
        aside = ws.root.parent / "successor.md"
        aside.write_text(memory.read_text(encoding="utf-8"), encoding="utf-8")
        memory.unlink()
        memory.symlink_to(aside)

    def logged() -> int:  # the warning naming the draft, in the log
        return sum(
            "is not finished" in m.message and draft.name in m.message
            for m in lsp.client.log_messages
        )

    await messages_until(lsp, ws, lambda: logged() > 0, "the unfinished supersede was never said")
    assert "tether doctor" in shown(lsp)
    for _ in range(MESSAGES_AFTER_START):  # let go: not tried, nor said, again
        await asyncio.wait_for(lsp.hover(ws.app_py, 0, 0), ANSWER_BOUND)
    assert logged() == 1
    assert status(ws, ws.gotcha) == "active"
