"""``tether.supersede`` of a guarded memory whose file git renamed since: the narrowing is
weighed through the renames as ``tether supersede`` and the MCP ``memory_supersede`` weigh it
(the new name keeps the file guarded; a file left out is named as it is now), the renames read
as the index holds them; an anchor in the renamed file follows it, as it does there."""

from __future__ import annotations

import pytest

from recall.genome import Genome
from tests.conftest import git
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def _guarded(lsp: Session, summary: str) -> str:
    """A guarded gotcha on src/store.py, written through the server: its id."""
    written = await lsp.command(
        "tether.remember",
        {"summary": summary, "category": "gotcha", "guard": True, "files": ["src/store.py"]},
    )
    return written["id"]


async def test_a_guarded_file_renamed_since_is_weighed_by_its_name_now(
    lsp_one: Session, ws: Workspace
) -> None:
    first = await _guarded(lsp_one, "the store writes through a temp file")
    second = await _guarded(lsp_one, "the store never holds the lock across a read")
    git(ws.root, "mv", "src/store.py", "src/storage.py")
    git(ws.root, "commit", "-q", "-m", "store becomes storage")
    store = ws.open_store()  # the renames recorded, as the indexer records them
    try:
        Genome(ws.root, store.conn).refresh()
    finally:
        store.close()
    kept = await lsp_one.command(
        "tether.supersede",
        {"memoryId": first, "summary": "storage writes atomically", "files": ["src/storage.py"]},
    )
    assert "guard_note" not in kept
    narrowed = await lsp_one.command(
        "tether.supersede",
        {"memoryId": second, "summary": "the app never holds it", "files": ["src/app.py"]},
    )
    assert narrowed["guard_note"].startswith(
        f"the guard of {second} is carried, but narrowed: src/storage.py (src/store.py in the "
        "memory) is no longer guarded"
    )


async def test_a_guarded_anchor_follows_its_file_renamed(lsp_one: Session, ws: Workspace) -> None:
    written = await lsp_one.command(
        "tether.remember",
        {
            "summary": "saving goes through a temp file",
            "category": "gotcha",
            "guard": True,
            "anchors": ["src/store.py::save_session"],
        },
    )
    git(ws.root, "mv", "src/store.py", "src/storage.py")
    git(ws.root, "commit", "-q", "-m", "store becomes storage")
    store = ws.open_store()  # the renames and symbols recorded, as the indexer records them
    try:
        Genome(ws.root, store.conn).refresh()
    finally:
        store.close()
    done = await lsp_one.command(
        "tether.supersede",
        {
            "memoryId": written["id"],
            "summary": "saving storage goes through a temp file",
            "files": ["src/storage.py"],
        },
    )
    assert "guard_note" not in done  # the guard covers save_session where it is now
    assert done["anchor_notes"] == [
        "the symbol anchor src/store.py::save_session is carried over as "
        "src/storage.py::save_session, where its definition is now (src/store.py is no longer "
        "in the working tree)"
    ]
    shown = await lsp_one.command("tether.show", {"memoryId": done["id"]})
    assert shown["files"] == ["src/storage.py"]
    assert [a["symbol"] for a in shown["anchors"]] == ["src/storage.py::save_session"]
    assert shown["guard"] is True
