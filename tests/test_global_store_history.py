"""The user's global store belongs to no repository: listing the memories of a file (the CLI's
``list --file``, the MCP ``memory_list``) from one repository and then another reads no git
history into it and says nothing about a rewritten history. Real repositories, the real CLI
and MCP server."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from conftest import make_repo, run_tether

from tests.mcp.harness import call, mcp_client

REWRITTEN = "no longer an ancestor of HEAD"


def _two_repositories(tmp_path: Path) -> tuple[Path, Path]:
    """Repositories a and b, each with a memory on its own file, and a global memory."""
    found = []
    for name in ("a", "b"):
        repo = make_repo(tmp_path / name, {f"{name}.py": f"{name} = 1\n"})
        done = run_tether(
            "remember", f"note on {name}", "-c", "gotcha", "-f", f"{name}.py", cwd=repo
        )
        assert done.code == 0, done.stderr
        found.append(repo)
    done = run_tether("remember", "I prefer tabs", "-c", "pref", "--global", cwd=found[0])
    assert done.code == 0, done.stderr
    return found[0], found[1]


def _global_history(home: Path) -> list[str]:
    """The tables of git history the global index holds."""
    with closing(sqlite3.connect(home / "index.db")) as db:
        rows = db.execute("SELECT name FROM sqlite_master WHERE name LIKE 'genome%'")
        return [row[0] for row in rows]


def test_listing_a_file_from_two_repositories_keeps_history_out_of_the_global_store(
    tmp_path: Path, tether_home: Path
) -> None:
    a, b = _two_repositories(tmp_path)
    for repo, name in ((a, "a"), (b, "b"), (a, "a")):
        done = run_tether("list", "--file", f"{name}.py", cwd=repo)
        assert done.code == 0, done.stderr
        assert f"note on {name}" in done.stdout
        assert REWRITTEN not in done.stderr
        assert done.stderr == ""
    assert _global_history(tether_home) == []


@pytest.mark.asyncio
async def test_memory_list_of_a_file_from_two_repositories_keeps_history_out_of_the_global_store(
    tmp_path: Path, tether_home: Path
) -> None:
    a, b = _two_repositories(tmp_path)
    for repo, name in ((a, "a"), (b, "b"), (a, "a")):
        async with mcp_client(repo) as client:
            listed = await call(client, "memory_list", file=f"{name}.py")
        assert [m["summary"] for m in listed["memories"]] == [f"note on {name}"]
        assert REWRITTEN not in str(listed)
    assert _global_history(tether_home) == []
