"""Pins how much the tools return at once, in-process through the same operations the tools
call (no server process needed to count results)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from mcp_server import limits, operations
from mcp_server.server import build
from mcp_server.workspace import Workspace
from recall.ranking import weights
from recall.store import MemoryStore
from tests.mcp.harness import call, error, mcp_client


def test_the_numbers() -> None:
    assert limits.LIMIT_MIN == 1  # a limit of none would answer nothing
    assert (limits.RECALL_LIMIT, limits.RECALL_MAX) == (5, 20)
    assert (limits.LIST_LIMIT, limits.LIST_MAX) == (50, 500)
    # an agent that asks gets a little more than the prompt hook injects unasked
    assert weights.INJECT_MAX < limits.RECALL_LIMIT < limits.RECALL_MAX
    assert limits.LIST_LIMIT < limits.LIST_MAX


@pytest.fixture
def ws(repo: Path) -> Iterator[Workspace]:
    workspace = Workspace(repo)
    yield workspace
    workspace.close()


def fill(store: MemoryStore, count: int) -> None:
    """``count`` distinct gotchas on src/app.py, written in one batch."""
    drafts = [
        (
            store.prepare_memory(
                summary=f"app gotcha number {n}", category="gotcha", files=["src/app.py"]
            ),
            None,
        )
        for n in range(count)
    ]
    store.import_many(drafts)


def test_recall_and_list_return_their_default_counts(ws: Workspace) -> None:
    fill(ws.project(), limits.LIST_LIMIT + 1)
    found = ws.run(operations.recall, prompt=None, files=["src/app.py"])
    assert len(found["results"]) == limits.RECALL_LIMIT
    more = ws.run(operations.recall, prompt=None, files=["src/app.py"], limit=limits.RECALL_MAX)
    assert len(more["results"]) == limits.RECALL_MAX
    listed = ws.run(operations.list_memories, file="src/app.py")
    assert len(listed["memories"]) == limits.LIST_LIMIT
    assert (listed["total"], listed["truncated"]) == (limits.LIST_LIMIT + 1, True)


def test_the_schema_defaults_are_the_limits(ws: Workspace) -> None:
    async def schemas() -> dict[str, dict]:
        async with Client(build(ws)) as client:  # in-process: the schema only
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    found = anyio.run(schemas)
    assert found["memory_recall"]["properties"]["limit"]["default"] == limits.RECALL_LIMIT
    assert found["memory_list"]["properties"]["limit"]["default"] == limits.LIST_LIMIT


def test_the_schema_bounds_are_the_ones_the_server_checks(repo: Path) -> None:
    async def check() -> None:
        async with mcp_client(repo) as client:
            found = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            for tool, most in (
                ("memory_recall", limits.RECALL_MAX),
                ("memory_list", limits.LIST_MAX),
            ):
                bounds = found[tool]["properties"]["limit"]
                assert (bounds["minimum"], bounds["maximum"]) == (limits.LIMIT_MIN, most), tool
                given = {"files": ["src/app.py"]} if tool == "memory_recall" else {}
                for outside in (limits.LIMIT_MIN - 1, most + 1):
                    assert "out of range" in await error(client, tool, **given, limit=outside)
                for inside in (limits.LIMIT_MIN, most):
                    await call(client, tool, **given, limit=inside)

    anyio.run(check)
