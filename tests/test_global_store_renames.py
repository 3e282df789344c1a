"""A memory of the user's global store naming a file the repository renamed since: recall finds
it for the file under its new name, and so do ``list --file`` and the MCP ``memory_list``, by
the same rule (a name a new file took again belongs to that file for the memories written
after). The global store holds no history of its own: the renames are the repository's. The
real CLI and MCP server, real repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

from tests.anchors.test_reused_names import OLD, at, name_taken
from tests.mcp.harness import call, mcp_client

Run = Callable[..., CliResult]

GLOBAL_NOTE = "I keep the helpers free of I/O"
PROJECT_NOTE = "helpers must stay importable without the app"


def _remember(cli: Run, summary: str, *options: str, env: dict[str, str] | None = None) -> str:
    done = cli("remember", summary, "--json", *options, env=env)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def _renamed(repo: Path, cli: Run) -> tuple[str, str]:
    """A global pref and a project gotcha on src/util.py, then ``git mv src/util.py
    src/helpers.py`` committed: the two memories' ids."""
    mine = _remember(cli, GLOBAL_NOTE, "-c", "pref", "-f", "src/util.py", "--global")
    ours = _remember(cli, PROJECT_NOTE, "-c", "gotcha", "-f", "src/util.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memories")
    git(repo, "mv", "src/util.py", "src/helpers.py")
    git(repo, "commit", "-q", "-m", "util becomes helpers")
    return mine, ours


def _listed(cli: Run, *options: str) -> list[str]:
    done = cli("list", "--json", *options)
    assert done.code in (0, 1), done.stderr
    return [m["id"] for m in done.json()]


def test_list_file_lists_a_global_memory_on_the_files_old_name(repo: Path, cli: Run) -> None:
    mine, ours = _renamed(repo, cli)
    hits = cli("recall", "-f", "src/helpers.py", "--json").json()["results"]
    receipts = {hit["id"]: hit["receipt"] for hit in hits}
    assert receipts[mine].startswith("via file (renamed from src/util.py)")  # recall follows it

    assert set(_listed(cli, "--file", "src/helpers.py")) == {mine, ours}
    assert set(_listed(cli, "--file", "src/helpers.py", "--status", "all")) == {mine, ours}
    assert _listed(cli, "--file", "src/helpers.py", "--scope", "global") == [mine]
    assert _listed(cli, "--file", "src/helpers.py", "--category", "pref") == [mine]
    assert _listed(cli, "--file", "src/helpers.py", "--status", "archived") == []
    assert cli("archive", mine).code == 0
    assert _listed(cli, "--file", "src/helpers.py", "--status", "archived") == [mine]
    assert _listed(cli, "--file", "src/helpers.py") == [ours]


def test_a_global_memory_written_after_the_name_came_back_stays_with_the_new_file(
    tmp_path: Path, cli: Run
) -> None:
    # util.py becomes legacy.py on day 4 and a new util.py takes the name on day 5: a global
    # memory on util.py from day 2 is about legacy.py, one from day 6 about the new util.py
    repo = make_repo(tmp_path / "repo", {"util.py": OLD, "README.md": "# demo\n"})
    options = ("-c", "pref", "-f", "util.py", "--global")
    before = _remember(cli, "the original util is mine", *options, env=at(2))
    name_taken(repo, cli)
    after = _remember(cli, "the new util is mine too", *options, env=at(6))

    hits = cli("recall", "-f", "legacy.py", "--json", env=at(20)).json()["results"]
    assert [hit["id"] for hit in hits] == [before]
    assert _listed(cli, "--file", "legacy.py", "--status", "all") == [before]
    # the memory of day 2 is legacy.py's alone: the new util.py took the name after it
    assert _listed(cli, "--file", "util.py", "--status", "all") == [after]


@pytest.mark.asyncio
async def test_memory_list_lists_a_global_memory_on_the_files_old_name(
    repo: Path, cli: Run
) -> None:
    mine, ours = _renamed(repo, cli)
    async with mcp_client(repo) as client:
        listed = await call(client, "memory_list", file="src/helpers.py", status="all")
        assert {m["id"] for m in listed["memories"]} == {mine, ours}
        listed = await call(client, "memory_list", file="src/helpers.py", category="pref")
        assert [m["id"] for m in listed["memories"]] == [mine]
