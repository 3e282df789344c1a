"""``memory_supersede`` given ``files`` and no ``anchors``: an old symbol anchor in a file left
out is dropped and said in ``anchor_notes``, and one whose file git renamed since follows it;
a guarded memory keeps those whose file is there, and one it would drop (its file deleted) is
refused: an agent never narrows a guard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import commit_rename, git, remember_guarded, run_tether

from mcp_server import writing
from mcp_server.workspace import Workspace
from tests.mcp.harness import call, error, mcp_client

pytestmark = pytest.mark.asyncio


def _guarded_helper(repo: Path) -> str:
    """A guarded gotcha on src/util.py::helper, committed: its id."""
    return remember_guarded(repo, "helper must stay pure", "--anchor", "src/util.py::helper")


async def _superseded(repo: Path, old_id: str, summary: str, files: list[str]) -> dict[str, Any]:
    """What ``memory_supersede`` of ``old_id`` with ``summary`` and ``files`` answers."""
    async with mcp_client(repo) as client:
        return await call(client, "memory_supersede", old_id=old_id, summary=summary, files=files)


async def test_new_files_drop_the_anchors_left_out(repo: Path) -> None:
    async with mcp_client(repo) as client:
        old = await call(
            client,
            "memory_write",
            summary="helper must stay pure",
            category="gotcha",
            files=[],
            anchors=["src/util.py::helper"],
        )
        done = await call(
            client,
            "memory_supersede",
            old_id=old["id"],
            summary="the app starts fast",
            files=["src/app.py"],
        )
    assert "src/util.py::helper" in " ".join(done.get("anchor_notes", []))
    shown = run_tether("show", done["id"], "--json", cwd=repo).json()
    assert shown["files"] == ["src/app.py"]
    assert not shown.get("anchors")


async def test_a_guarded_memory_keeps_its_anchors(repo: Path) -> None:
    done = await _superseded(repo, _guarded_helper(repo), "the app starts fast", ["src/app.py"])
    assert not done.get("anchor_notes")
    shown = run_tether("show", done["id"], "--json", cwd=repo).json()
    assert shown["guard"] is True
    assert [a["symbol"] for a in shown["anchors"]] == ["src/util.py::helper"]


async def test_a_guarded_anchor_follows_its_file_renamed(repo: Path) -> None:
    old_id = _guarded_helper(repo)
    commit_rename(repo, "src/util.py", "src/legacy.py")
    done = await _superseded(repo, old_id, "helper in legacy must stay pure", ["src/legacy.py"])
    assert done["anchor_notes"] == [
        "the symbol anchor src/util.py::helper is carried over as src/legacy.py::helper, where "
        "its definition is now (src/util.py is no longer in the working tree)"
    ]
    shown = run_tether("show", done["id"], "--json", cwd=repo).json()
    assert shown["files"] == ["src/legacy.py"]  # no file gone from the working tree
    assert [a["symbol"] for a in shown["anchors"]] == ["src/legacy.py::helper"]
    assert shown["guard"] is True


async def test_following_a_guarded_anchor_and_keeping_its_guard_open_the_genome_once(
    repo: Path, genome_opens: list[Path | None]
) -> None:
    """The genome opened to carry the anchor to its renamed file is the one the guard is
    weighed on before the write: in-process, through the operation the tool calls."""
    old_id = _guarded_helper(repo)
    commit_rename(repo, "src/util.py", "src/legacy.py")
    ws = Workspace(repo)
    try:
        done = ws.run(
            writing.supersede,
            old_id=old_id,
            summary="helper in legacy must stay pure",
            files=["src/legacy.py"],
        )
    finally:
        ws.close()
    assert "carried over as src/legacy.py::helper" in done["anchor_notes"][0]
    assert genome_opens == [repo]


async def test_a_guarded_anchor_in_a_deleted_file_is_not_dropped_by_an_agent(repo: Path) -> None:
    old_id = _guarded_helper(repo)
    git(repo, "rm", "-q", "src/util.py")
    git(repo, "commit", "-q", "-m", "util goes")
    async with mcp_client(repo) as client:
        said = await error(
            client,
            "memory_supersede",
            old_id=old_id,
            summary="the app starts fast",
            files=["src/app.py"],
        )
        kept = await call(
            client,
            "memory_supersede",
            old_id=old_id,
            summary="the app starts fast",
            files=["src/app.py", "src/util.py"],
            allow_missing=True,
        )
    assert "leave out src/util.py, which it guards" in said
    assert "an agent cannot lift or narrow a guard" in said
    assert "allow_missing: true for one no longer in the working tree" in said
    shown = run_tether("show", kept["id"], "--json", cwd=repo).json()
    assert [a["symbol"] for a in shown["anchors"]] == ["src/util.py::helper"]
