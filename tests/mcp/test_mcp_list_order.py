"""``memory_list`` over both stores is one list, newest first, cut to its ``limit`` only after
the project's and the global store's memories are merged, as ``tether list`` is. The real
server over stdio, in a real repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_tether

from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio


def imported(repo: Path, scope: str, created: list[str]) -> None:
    """One gotcha on src/app.py per time of ``created``, imported into the store of ``scope``."""
    lines = [
        {"summary": f"{scope} {when}", "category": "gotcha", "files": ["src/app.py"],
         "created": when}
        for when in created
    ]  # fmt: skip
    source = repo.parent / f"{scope}.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    done = run_tether("import", str(source), "--scope", scope, cwd=repo)
    assert done.code == 0, done.stderr


async def test_memory_list_is_newest_first_across_both_stores_before_its_limit(
    repo: Path,
) -> None:
    imported(repo, "project", ["2026-03-01T10:00:00+00:00", "2026-03-03T10:00:00+00:00"])
    imported(repo, "global", ["2026-03-02T10:00:00+00:00", "2026-03-04T10:00:00+00:00"])
    async with mcp_client(repo) as client:
        cut = await call(client, "memory_list", limit=1)
        whole = await call(client, "memory_list", scope="all")
    assert [m["summary"] for m in cut["memories"]] == ["global 2026-03-04T10:00:00+00:00"]
    assert (cut["total"], cut["truncated"]) == (4, True)
    assert [(m["scope"], m["summary"].split()[1][:10]) for m in whole["memories"]] == [
        ("global", "2026-03-04"),
        ("project", "2026-03-03"),
        ("global", "2026-03-02"),
        ("project", "2026-03-01"),
    ]
