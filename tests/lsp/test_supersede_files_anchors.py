"""``tether.supersede`` given ``files`` and no ``anchors``: an old symbol anchor in a file left
out is dropped and said in ``anchor_notes``; one in a file still named carries over."""

from __future__ import annotations

import pytest

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def test_new_files_drop_the_anchors_left_out(lsp_one: Session, ws: Workspace) -> None:
    await lsp_one.open(ws.app_py)
    written = await lsp_one.command(
        "tether.remember",
        {
            "summary": "saving and loading share one lock",
            "anchors": ["src/store.py::save_session", "src/store.py::load_session"],
            "files": ["src/app.py"],
        },
    )
    done = await lsp_one.command(
        "tether.supersede",
        {"memoryId": written["id"], "summary": "the app takes the lock", "files": ["src/app.py"]},
    )
    notes = " ".join(done.get("anchor_notes", []))
    assert "src/store.py::save_session" in notes and "src/store.py::load_session" in notes
    shown = await lsp_one.command("tether.show", {"memoryId": done["id"]})
    assert shown["files"] == ["src/app.py"]
    assert not shown.get("anchors")


async def test_an_anchor_in_a_file_still_named_carries_over(
    lsp_one: Session, ws: Workspace
) -> None:
    await lsp_one.open(ws.app_py)
    written = await lsp_one.command(
        "tether.remember",
        {"summary": "saving is atomic", "anchors": ["src/store.py::save_session"]},
    )
    done = await lsp_one.command(
        "tether.supersede",
        {
            "memoryId": written["id"],
            "summary": "saving is atomic and fsynced",
            "files": ["src/store.py", "src/app.py"],
        },
    )
    assert not done.get("anchor_notes")
    shown = await lsp_one.command("tether.show", {"memoryId": done["id"]})
    symbols = [a if isinstance(a, str) else a["symbol"] for a in shown["anchors"]]
    assert symbols == ["src/store.py::save_session"]
