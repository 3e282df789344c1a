"""The repository moved or deleted under a running MCP server: a project-scope call is a tool
error naming the folder and saying to restart the server there, and nothing is created at the
old path (a write there would land in a plain folder no checkout reads); the global store
still takes writes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from recall.locations import RepositoryGone, ensure_created, project_location
from tests.mcp.harness import call, error, mcp_client


def _says_gone(message: str, root: Path) -> None:
    assert str(root) in message
    assert "gone or moved" in message
    assert "restart" in message


@pytest.mark.asyncio
@pytest.mark.parametrize("how", ["moved", "deleted"])
async def test_project_calls_refuse_once_the_repository_is_gone(repo: Path, how: str) -> None:
    async with mcp_client(repo) as client:
        await call(client, "memory_write", summary="pool", category="gotcha", files=["src/app.py"])
        if how == "moved":
            os.rename(repo, repo.parent / "moved")
        else:
            shutil.rmtree(repo)
        message = await error(
            client, "memory_write", summary="lost", category="gotcha", files=["src/app.py"]
        )
        _says_gone(message, repo)
        _says_gone(await error(client, "memory_recall", files=["src/app.py"]), repo)
        _says_gone(await error(client, "memory_list"), repo)
        _says_gone(await error(client, "memory_list", scope="project"), repo)
        kept = await call(
            client, "memory_write", summary="mine", category="pref", files=[], scope="global"
        )
        assert kept["written"] is True
        assert not repo.exists()  # nothing created at the old path
    if how == "moved":
        assert "lost" not in "".join(
            p.read_text() for p in (repo.parent / "moved" / ".tether" / "memories").iterdir()
        )


def test_a_store_is_never_created_in_a_repository_folder_that_is_gone(repo: Path) -> None:
    location = project_location(repo)
    shutil.rmtree(repo)
    with pytest.raises(RepositoryGone) as raised:
        ensure_created(location)
    assert str(repo) in str(raised.value)
    assert not repo.exists()
