"""An agent's ``memory_write`` is refused a NUL or other control character in its summary,
and a NUL in its details, as the CLI is: a NUL makes git treat the memory file as binary."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp.harness import error, mcp_client

pytestmark = pytest.mark.asyncio


async def test_write_refuses_a_nul_in_the_summary_and_in_the_details(repo: Path) -> None:
    write = {"category": "gotcha", "files": ["src/app.py"]}
    async with mcp_client(repo) as client:
        message = await error(client, "memory_write", summary="nul \x00 byte", **write)
        assert "summary must be one line of text without control characters" in message
        assert "\\x00 at character 5" in message
        message = await error(client, "memory_write", summary="x", details="a\x00b", **write)
        assert "details hold the control character \\x00 on line 1, character 2" in message
    assert list((repo / ".tether" / "memories").glob("*.md")) == []


async def test_write_refuses_details_of_whitespace_only(repo: Path) -> None:
    write = {"category": "gotcha", "files": ["src/app.py"]}
    async with mcp_client(repo) as client:
        message = await error(client, "memory_write", summary="x", details=" \n\t ", **write)
        assert "details holds only whitespace; nothing written" in message
    assert list((repo / ".tether" / "memories").glob("*.md")) == []
