"""A command by id that finds no memory says why when the workspace can tell, in the words the
CLI and the MCP server use: the memory's file is there but cannot be loaded (a merge left it in
conflict), naming the file, its line and what to do; or the repository was moved or deleted
under the running server. Only an id nothing holds is "no memory"."""

from __future__ import annotations

import os

import pytest
from pygls.exceptions import JsonRpcException

from tests.conftest import run_tether
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

CONFLICT = "unresolved merge conflict: resolve it (keep one side or both) and commit"
BY_ID = {
    "tether.pin": {},
    "tether.show": {},
    "tether.archive": {},
    "tether.guard": {},
    "tether.supersede": {"summary": "sessions are JSON, always"},
}


async def test_a_memory_whose_file_cannot_be_loaded_is_named_with_why(
    lsp_one: Session, ws: Workspace
) -> None:
    path = ws.memory_file(ws.decision)
    text = path.read_text(encoding="utf-8")
    fence = text.index("---", 3) + len("---\n")
    line = text[:fence].count("\n") + 1
    path.write_text(
        text[:fence] + "<<<<<<< HEAD\nOurs\n=======\nTheirs\n>>>>>>> other\n" + text[fence:],
        encoding="utf-8",
    )
    said = f"memory '{ws.decision}' cannot be loaded: {path}:{line}: {CONFLICT}; fix the file"
    cli = run_tether("pin", ws.decision, cwd=ws.root)
    assert cli.code != 0 and said in cli.stderr  # the CLI's words
    for command, extra in BY_ID.items():
        for ref in (ws.decision, ws.decision[:6]):
            with pytest.raises(JsonRpcException) as raised:
                await lsp_one.command(command, {"memoryId": ref, **extra})
            expected = said.replace(f"'{ws.decision}'", repr(ref))
            assert f"{command}: {expected}" in str(raised.value), (command, ref)
    with pytest.raises(JsonRpcException, match="no memory 'deadbeef' in this workspace"):
        await lsp_one.command("tether.pin", {"memoryId": "deadbeef"})
    assert "pinned: true" not in path.read_text(encoding="utf-8")


async def test_a_repository_moved_under_the_server_is_said_gone(
    lsp_one: Session, ws: Workspace
) -> None:
    await lsp_one.open(ws.store_py)
    await lsp_one.indexing_ended()
    moved = ws.root.parent / "moved"
    os.rename(ws.root, moved)
    for command in ("tether.pin", "tether.show"):
        with pytest.raises(JsonRpcException) as raised:
            await lsp_one.command(command, {"memoryId": ws.gotcha})
        assert f"{command}: the repository {ws.root} is gone or moved" in str(raised.value)
    assert not ws.root.exists()  # nothing made at the old path
    assert "pinned: true" not in (moved / ".tether" / "memories" / f"{ws.gotcha}.md").read_text()
