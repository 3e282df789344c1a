"""The MCP tools write no guard in the global store, where it would protect nothing, and an
agent's supersede does not drop one already there: that is a person's to take off."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_tether

from tests.mcp.harness import call, error, mcp_client

pytestmark = pytest.mark.asyncio


async def test_a_guard_in_the_global_store_is_a_tool_error(repo: Path, tether_home: Path) -> None:
    async with mcp_client(repo) as client:
        message = await error(
            client, "memory_write", summary="app.py is frozen", category="decision",
            files=["src/app.py"], scope="global", guard=True,
        )  # fmt: skip
        assert message.startswith("memory_write: a guard protects the files of one repository")
        assert 'write the memory in the project store (drop scope: "global")' in message
        assert not list((tether_home / "memories").glob("*.md"))
        written = await call(
            client, "memory_write", summary="app.py is frozen", category="decision",
            files=["src/app.py"], scope="global",
        )  # fmt: skip
        [path] = list((tether_home / "memories").glob("*.md"))
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("category: decision\n", "category: decision\nguard: true\n"))
        message = await error(
            client, "memory_supersede", old_id=written["id"], summary="app.py stays frozen"
        )
    assert f"memory {written['id']} is guarded and in the global store" in message
    assert f"`tether unguard {written['id']}`" in message
    shown = run_tether("show", written["id"], "--json", cwd=repo).json()
    assert (shown["status"], shown["guard"]) == ("active", True)
