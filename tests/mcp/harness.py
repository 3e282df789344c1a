"""The MCP server as agents run it: ``tether mcp`` spawned over stdio in a temp repository and
driven by the SDK's own client.

This folder has no ``__init__.py`` on purpose: ``tests/`` is on ``sys.path`` (its conftest is
imported as ``conftest``), and a regular package named ``mcp`` there would shadow the SDK.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

TETHER = [sys.executable, "-m", "recall"]


@asynccontextmanager
async def mcp_client(
    cwd: Path, *options: str, env: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    """A client connected to a fresh ``tether [OPTIONS] mcp`` process started in ``cwd``.

    The whole environment is passed on (the SDK would keep only a few variables), so the
    server sees the test's ``TETHER_HOME`` and git identity; ``env`` adds to it.
    """
    # Run under an agent, the tests may inherit its project variable: it would win over cwd.
    environment = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    environment.update(env or {})
    params = StdioServerParameters(
        command=TETHER[0], args=[*TETHER[1:], *options, "mcp"], cwd=cwd, env=environment
    )
    async with Client(params, read_timeout_seconds=60) as client:
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its JSON result."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    data = json.loads(text_of(result))
    assert data == result.structured_content  # the text block and the structure agree
    return data


async def error(client: Client, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail with a tool error; its message."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, text_of(result)
    return text_of(result)


def text_of(result: CallToolResult) -> str:
    """The text of a tool result's single content block."""
    (block,) = result.content
    return block.text  # type: ignore[union-attr]
