"""``list --file FOLDER`` after the folder moved: the memories naming its files by the names
they had before the move are listed, as for one of its files, by the same dated rule (a name a
new file took again belongs to that file for the memories written after); the MCP
``memory_list`` shares the listing. The real CLI and MCP server, real repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git

from tests.anchors.test_reused_names import at, commit
from tests.mcp.harness import call, mcp_client

Run = Callable[..., CliResult]


def _remember(cli: Run, summary: str, path: str, day: int) -> str:
    done = cli("remember", summary, "-c", "gotcha", "-f", path, "--json", env=at(day))
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def _listed(cli: Run, *options: str) -> list[str]:
    done = cli("list", "--json", *options)
    assert done.code in (0, 1), done.stderr
    return sorted(m["id"] for m in done.json())


def _moved_twice(repo: Path, cli: Run) -> dict[str, str]:
    """core/a.py and core/b.py with a memory each (day 2), moved to lib/ over two commits
    (days 3 and 4), lib/ then moved to engine/ (day 5), and a new core/a.py (day 6) with a
    memory of its own (day 7): the memories' ids by the file they name."""
    (repo / "core").mkdir()
    for name in ("a", "b"):
        (repo / "core" / f"{name}.py").write_text(f"{name} = 'a file of its own: {name}'\n")
    git(repo, "add", "-A")
    commit(repo, 1, "commit", "-q", "-m", "core")
    ids = {path: _remember(cli, f"note on {path}", path, 2) for path in ("core/a.py", "core/b.py")}
    for day, name in ((3, "a"), (4, "b")):
        (repo / "lib").mkdir(exist_ok=True)
        commit(repo, day, "mv", f"core/{name}.py", f"lib/{name}.py")
        commit(repo, day, "commit", "-q", "-m", f"core/{name}.py moves to lib/")
    commit(repo, 5, "mv", "lib", "engine")
    commit(repo, 5, "commit", "-q", "-m", "lib/ moves to engine/")
    (repo / "core").mkdir(exist_ok=True)  # git may leave the emptied folder
    (repo / "core" / "a.py").write_text("fresh = True\n")
    git(repo, "add", "-A")
    commit(repo, 6, "commit", "-q", "-m", "a new core/a.py")
    ids["new core/a.py"] = _remember(cli, "note on the new core/a.py", "core/a.py", 7)
    assert cli("index").code == 0
    return ids


def test_list_of_a_moved_folder_lists_the_memories_on_its_files_old_names(
    repo: Path, cli: Run
) -> None:
    ids = _moved_twice(repo, cli)
    moved = sorted([ids["core/a.py"], ids["core/b.py"]])

    assert _listed(cli, "--file", "engine") == moved
    assert _listed(cli, "--file", "engine/") == moved
    assert _listed(cli, "--file", "engine/a.py") == [ids["core/a.py"]]
    # the memory written on core/a.py after a new file took the name is that file's
    assert ids["new core/a.py"] not in _listed(cli, "--file", "engine", "--status", "all")
    assert _listed(cli, "--file", "core") == sorted([*ids.values()])  # as they name it
    piped = cli("list", "--file", "engine")
    assert piped.code == 0 and len(piped.stdout.splitlines()) == 2


@pytest.mark.asyncio
async def test_memory_list_of_a_moved_folder_lists_them_too(repo: Path, cli: Run) -> None:
    ids = _moved_twice(repo, cli)
    async with mcp_client(repo) as client:
        listed = await call(client, "memory_list", file="engine", status="all")
    assert sorted(m["id"] for m in listed["memories"]) == sorted(
        [ids["core/a.py"], ids["core/b.py"]]
    )
