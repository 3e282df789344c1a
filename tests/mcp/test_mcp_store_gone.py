"""A memory folder taken away under a running MCP server (a branch switch, a clean): the index
left behind is let go of, tools answer as for an empty store instead of failing, and the
memories come back with the folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio


async def test_a_folder_taken_away_reads_as_empty_and_comes_back(repo: Path) -> None:
    async with mcp_client(repo) as client:
        written = await call(
            client, "memory_write", summary="pool", category="gotcha", files=["src/app.py"]
        )
        folder = repo / ".tether" / "memories"
        kept = {p.name: p.read_bytes() for p in folder.iterdir()}
        assert [
            r["id"] for r in (await call(client, "memory_recall", files=["src/app.py"]))["results"]
        ] == [written["id"]]
        shutil.rmtree(folder)
        assert (await call(client, "memory_recall", files=["src/app.py"]))["results"] == []
        assert (await call(client, "memory_list"))["total"] == 0
        folder.mkdir()
        for name, data in kept.items():
            (folder / name).write_bytes(data)
        back = await call(client, "memory_recall", files=["src/app.py"])
        assert [r["id"] for r in back["results"]] == [written["id"]]
