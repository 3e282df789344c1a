"""A project store whose memory folder's name a file has taken: the MCP read tools say so, as
``memory_write`` does, instead of answering "no memory" or an empty list without a word. The
real server over stdio, in a real repository."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import run_tether

from recall.locations import project_location
from tests.mcp.harness import call, error, mcp_client

pytestmark = pytest.mark.asyncio

BLOCKED = "is not a folder (a file or a link has its name), so no memory is read or written there"


def _blocked(repo: Path) -> tuple[str, Path]:
    """A memory written, then its folder replaced by a file: the id and the folder."""
    done = run_tether("remember", "app.py stays small", "-c", "gotcha", "-f", "src/app.py",
                      "--json", cwd=repo)  # fmt: skip
    assert done.code == 0, done.stderr
    folder = project_location(repo).memories_dir
    shutil.rmtree(folder)
    folder.write_text("not a folder\n", encoding="utf-8")
    return str(done.json()["id"]), folder


async def test_memory_get_and_memory_list_say_the_folder_is_a_file(repo: Path) -> None:
    memory_id, folder = _blocked(repo)
    async with mcp_client(repo) as client:
        written = await error(
            client, "memory_write", summary="a note", category="gotcha", files=["src/app.py"]
        )
        got = await error(client, "memory_get", id=memory_id)
        listed = await call(client, "memory_list")
        recalled = await call(client, "memory_recall", prompt="app.py stays small")
    assert f"{folder} {BLOCKED}" in written
    assert f"no memory {memory_id!r}" in got
    assert f"{folder} {BLOCKED}; move it away" in got
    assert listed["memories"] == []
    assert any(f"{folder} {BLOCKED}" in note for note in listed["notes"])
    assert any(f"{folder} {BLOCKED}" in note for note in recalled["notes"])
