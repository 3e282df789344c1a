"""Another Tether process holding the store (a reindex or an import holds its writers' lock, a
genome refresh its index) never stops the MCP server: reads answer from the index as last
committed and say so in ``notes``; a write waits for the store without holding up the calls
after it, goes through once the store is free, and fails naming it when it stays busy."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from recall.store.busy import WRITE_WAIT_SECONDS
from tests.mcp.harness import call, error, mcp_client
from tests.test_cli_busy import index_held, lock_held

pytestmark = pytest.mark.asyncio

ANSWER_BOUND = 10.0
"""How long a read may take while the store is held: its one-second wait and a cold start,
far below the write's wait."""

PULLED = "a gotcha pulled while the store was busy"


def pull(repo: Path) -> None:
    (repo / ".tether" / "memories" / "feedbeef.md").write_text(
        f"---\ncategory: gotcha\nfiles:\n  - src/app.py\n---\n{PULLED}\n"
    )


async def test_reads_answer_and_a_write_waits_without_holding_them_up(repo: Path) -> None:
    async with mcp_client(repo) as client:
        written = await call(
            client, "memory_write", summary="pool size is 4", category="gotcha", files=[]
        )
        assert (await call(client, "memory_list"))["total"] == 1
        with lock_held(repo):
            pull(repo)
            listed = await asyncio.wait_for(call(client, "memory_list"), ANSWER_BOUND)
            assert [m["id"] for m in listed["memories"]] == [written["id"]]  # as last committed
            assert any("is busy with another Tether process" in n for n in listed["notes"])
            pin = asyncio.ensure_future(call(client, "memory_pin", id=written["id"]))
            await asyncio.sleep(0.5)
            # not held up by the waiting pin, whose wait is longer than the bound
            again = await asyncio.wait_for(call(client, "memory_list"), ANSWER_BOUND)
            assert again["total"] == 1
            assert not pin.done()  # the write waits for the lock
        pinned = await asyncio.wait_for(pin, ANSWER_BOUND)
        assert pinned["pinned"] is True
        free = await call(client, "memory_list")
        assert free["total"] == 2 and "notes" not in free  # the pulled file, read once free
        assert "pinned: true" in (repo / ".tether" / "memories" / f"{written['id']}.md").read_text()


@pytest.mark.parametrize("holder", [lock_held, index_held])
async def test_a_write_held_off_past_the_wait_fails_naming_the_store(repo: Path, holder) -> None:
    async with mcp_client(repo) as client:
        written = await call(client, "memory_write", summary="pool", category="gotcha", files=[])
        with holder(repo):
            start = time.monotonic()
            message = await error(client, "memory_pin", id=written["id"])
            assert time.monotonic() - start >= WRITE_WAIT_SECONDS  # the whole wait, then this
        assert f"the project store {repo / '.tether'} is busy" in message
        assert "nothing was written" in message and "retry" in message
        got = await call(client, "memory_get", id=written["id"])
        assert got["pinned"] is False
