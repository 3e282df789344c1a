"""An MCP server started in a repository whose ``core.worktree`` puts git's work tree in
another folder serves that work tree's store: its first write sets the store up there, as
the CLI does, rather than taking the work tree (no ``.git`` in it) for a repository gone."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git

from tests.mcp.harness import call, mcp_client


@pytest.mark.asyncio
async def test_the_first_write_goes_to_git_s_work_tree(tmp_path: Path) -> None:
    meta, tree = tmp_path / "meta", tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    git(tmp_path, "init", "-q", "meta")
    git(meta, "config", "core.worktree", "../../tree")
    (tree / "src" / "a.py").write_text("A = 1\n", encoding="utf-8")
    git(meta, "add", "-A")
    git(meta, "commit", "-q", "-m", "one")
    async with mcp_client(meta) as client:
        written = await call(
            client, "memory_write", summary="A is one", category="gotcha", files=["src/a.py"]
        )
        assert written["written"] is True
        listed = await call(client, "memory_list", scope="project")
    assert [m["summary"] for m in listed["memories"]] == ["A is one"]
    assert len(list((tree / ".tether" / "memories").glob("*.md"))) == 1
    assert not (meta / ".tether").exists()
