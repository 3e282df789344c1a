"""A vendor token in a file's or an anchor's name given to an MCP write is refused in the
tool's own terms: the argument named as the tool names it, the advice one an agent can follow
(no command-line flag the tool does not have)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp.harness import error, mcp_client

pytestmark = pytest.mark.asyncio

TOKEN = "ghp_" + "Zk3Zq9aB7cD1eF2gH3iJ4kL5mN6oP7qR8sT9"  # made up; joined so no scanner trips here


async def test_a_token_in_a_file_or_anchor_name_is_refused_naming_the_argument(repo: Path) -> None:
    async with mcp_client(repo) as client:
        in_file = await error(
            client,
            "memory_write",
            summary="m",
            category="gotcha",
            files=["src/app.py", f"src/{TOKEN}.py"],
            allow_missing=True,
        )
        in_anchor = await error(
            client,
            "memory_write",
            summary="m",
            category="gotcha",
            files=["src/app.py"],
            anchors=[f"src/app.py::{TOKEN}"],
        )
    assert "GitHub token" in in_file and "in files[1]" in in_file
    assert "in anchors[0]" in in_anchor
    for said in (in_file, in_anchor):
        assert "--allow-secret" not in said and "call the tool again" in said
        assert TOKEN[-12:] not in said
