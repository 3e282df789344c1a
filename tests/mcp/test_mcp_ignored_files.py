"""``memory_recall`` given a file git ignores (a generated one) finds the memories naming it,
and ``memory_get`` takes the file as there, as it is on disk: the spawned server over stdio."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, run_tether

from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio


async def test_a_memory_on_an_ignored_file_is_recalled_by_it(repo: Path) -> None:
    (repo / ".gitignore").write_text("build/\n", encoding="utf-8")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore the build folder")
    (repo / "build").mkdir()
    (repo / "build" / "gen.py").write_text("generated = 1\n", encoding="utf-8")
    assert run_tether("index", cwd=repo).code == 0  # the tree read with the file there, ignored
    async with mcp_client(repo) as client:
        written = await call(
            client,
            "memory_write",
            summary="generated file: edit the template",
            category="gotcha",
            files=["build/gen.py"],
        )
        recalled = await call(client, "memory_recall", files=["build/gen.py"])
        card = await call(client, "memory_get", id=written["id"])
    assert [hit["id"] for hit in recalled["results"]] == [written["id"]]
    assert recalled["results"][0]["receipt"].startswith("via file")
    assert card["files_now"] == {}
