"""Pinning an archived memory through MCP says what ``tether pin`` says of it: pinned, and out of
recall until restored. The real server over stdio and the real CLI, in a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_tether

from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio


async def test_pinning_an_archived_memory_says_it_stays_out_of_recall(repo: Path) -> None:
    done = run_tether("remember", "app.py stays small", "-c", "gotcha", "-f", "src/app.py",
                      "--json", cwd=repo)  # fmt: skip
    assert done.code == 0, done.stderr
    memory_id = str(done.json()["id"])
    assert run_tether("archive", memory_id, cwd=repo).code == 0
    cli = run_tether("pin", memory_id, cwd=repo)
    assert cli.code == 0, cli.stderr
    run_tether("unpin", memory_id, cwd=repo)
    said = cli.stderr.removeprefix("tether: ").strip()
    assert said.startswith(f"{memory_id} is pinned, but it is archived")
    async with mcp_client(repo) as client:
        pinned = await call(client, "memory_pin", id=memory_id)
        unpinned = await call(client, "memory_pin", id=memory_id, pinned=False)
    assert (pinned["pinned"], pinned["changed"]) == (True, True)
    assert pinned["note"] == said
    assert "note" not in unpinned  # unpinned, it is as it was: nothing to say
