"""``tether.supersede`` of a guarded memory whose file git renamed since: the narrowing is
weighed through the renames as ``tether supersede`` and the MCP ``memory_supersede`` weigh it
(the new name keeps the file guarded; a file left out is named as it is now), the renames read
as the index holds them; an anchor in the renamed file follows it, as it does there."""

from __future__ import annotations

import pytest

from tests.conftest import remember_guarded
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def test_a_guarded_file_renamed_since_is_weighed_by_its_name_now(
    lsp_one: Session, ws: Workspace
) -> None:
    first = remember_guarded(ws.root, "the store writes through a temp file", "-f", "src/store.py")
    second = remember_guarded(
        ws.root, "the store never holds the lock across a read", "-f", "src/store.py"
    )
    ws.commit_rename("src/store.py", "src/storage.py")
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
    old = remember_guarded(
        ws.root, "saving goes through a temp file", "--anchor", "src/store.py::save_session"
    )
    ws.commit_rename("src/store.py", "src/storage.py")
    done = await lsp_one.command(
        "tether.supersede",
        {
            "memoryId": old,
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
