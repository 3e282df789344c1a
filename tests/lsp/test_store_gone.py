"""The project's memory folder taken away under a running server (a branch switch, ``git
clean``) while its index file stays: the project's diagnostics and hover cards are withdrawn,
one line says why, and they come back with the folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from recall.locations import global_location
from recall.store import MemoryStore
from tests.lsp import workspace
from tests.lsp.session import Session
from tests.lsp.test_store_busy import index_held

pytestmark = pytest.mark.asyncio

GLOBAL_GOTCHA = "session files are shared by every checkout of this repository"


@pytest.fixture
def ws(tmp_path: Path) -> workspace.Workspace:
    """The test repository, and a global memory on its store file (so that a recall is still
    made for the file once the project's memories are gone)."""
    built = workspace.build(tmp_path / "repo")
    store = MemoryStore(global_location(built.root), notice=lambda message: None)
    try:
        draft = store.prepare_memory(
            summary=GLOBAL_GOTCHA, category="gotcha", files=["src/store.py"], author="Dana"
        )
        store.remember(draft)
    finally:
        store.close()
    return built


def _gone_lines(lsp: Session) -> list[str]:
    return [m.message for m in lsp.client.log_messages if " is gone" in m.message]


async def test_diagnostics_leave_and_return_with_the_memory_folder(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    line = ws.store_py.read_text().splitlines().index("def save_session(path, data):")
    assert ws.gotcha in [d.code for d in lsp.diagnostics(ws.store_py)]
    memories = ws.root / ".tether" / "memories"
    kept = ws.root.parent / "memories-elsewhere"
    shutil.copytree(memories, kept)
    shutil.rmtree(memories)  # the index file stays where it was
    for _ in range(3):
        await lsp.type(ws.store_py, (0, 0), (0, 0), "#\n")
    shown = lsp.diagnostics(ws.store_py)
    assert ws.gotcha not in [d.code for d in shown]
    assert [GLOBAL_GOTCHA in d.message for d in shown] == [True]  # the global store still counts
    card = await lsp.hover(ws.store_py, line + 3, 6)
    assert card is None or (
        isinstance(card.contents, types.MarkupContent) and ws.gotcha not in card.contents.value
    )
    (said,) = _gone_lines(lsp)  # once, not per keystroke
    assert str(memories) in said
    assert not [m for m in lsp.client.log_messages if "kept being replaced" in m.message]
    kept.rename(memories)
    await lsp.type(ws.store_py, (0, 0), (0, 0), "#\n")
    back = [d for d in lsp.diagnostics(ws.store_py) if d.code == ws.gotcha]
    assert [d.range.start.line for d in back] == [line + 4]


async def test_the_folder_back_while_another_process_holds_the_index(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    """The folder comes back while another connection (an indexer thread, a genome refresh)
    holds the index: its memories show at once, read from the index as last committed, not
    from the empty stand-in the server used while the folder was gone."""
    lsp = lsp_one
    await lsp.open(ws.store_py)
    memories = ws.root / ".tether" / "memories"
    kept = ws.root.parent / "memories-elsewhere"
    memories.rename(kept)
    await lsp.type(ws.store_py, (0, 0), (0, 0), "#\n")
    assert ws.gotcha not in [d.code for d in lsp.diagnostics(ws.store_py)]
    with index_held(ws):
        kept.rename(memories)
        await lsp.type(ws.store_py, (0, 0), (0, 0), "#\n")
        assert ws.gotcha in [d.code for d in lsp.diagnostics(ws.store_py)]
    await lsp.type(ws.store_py, (0, 0), (0, 0), "#\n")
    assert ws.gotcha in [d.code for d in lsp.diagnostics(ws.store_py)]
