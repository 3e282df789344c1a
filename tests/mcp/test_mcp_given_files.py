"""A file an agent names in ``files`` that one of the memory's anchors is also in is recorded
as named (``given_files``), so ``tether repoint`` keeps it when the anchor moves away; a file
added only for an anchor is not, and leaves with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git, run_tether

from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio


def _files_after_moving_helper(repo: Path, *memory_ids: str) -> list[list[str]]:
    """Move ``helper`` from src/util.py to src/app.py, repoint each memory, and its files."""
    (repo / "src/util.py").write_text("", encoding="utf-8")
    with (repo / "src/app.py").open("a", encoding="utf-8") as out:
        out.write("\n\ndef helper():\n    return 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "helper moves to app")
    found = []
    for memory_id in memory_ids:
        done = run_tether("repoint", memory_id, "--apply", cwd=repo)
        assert done.code == 0, done.stderr
        shown = run_tether("show", memory_id, "--json", cwd=repo)
        found.append(json.loads(shown.stdout)["files"])
    return found


async def test_files_an_agent_named_stay_through_a_repoint(repo: Path) -> None:
    anchor = "src/util.py::helper"
    async with mcp_client(repo) as client:
        named = await call(
            client,
            "memory_write",
            summary="helper must stay pure",
            category="gotcha",
            files=["src/util.py"],
            anchors=[anchor],
        )
        only_anchored = await call(
            client,
            "memory_write",
            summary="helper is called per request",
            category="context",
            files=[],
            anchors=[anchor],
        )
        carried = await call(
            client, "memory_supersede", old_id=named["id"], summary="helper must stay pure now"
        )
    assert _files_after_moving_helper(repo, carried["id"], only_anchored["id"]) == [
        ["src/util.py", "src/app.py"],
        ["src/app.py"],
    ]


async def test_new_anchors_leave_the_files_only_old_anchors_were_in(repo: Path) -> None:
    (repo / "src/app.py").write_text("def main():\n    return 0\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main")
    async with mcp_client(repo) as client:
        old = await call(
            client,
            "memory_write",
            summary="helper is read by the guide",
            category="gotcha",
            files=["docs/guide.md"],
            anchors=["src/util.py::helper"],
        )
        new = await call(
            client,
            "memory_supersede",
            old_id=old["id"],
            summary="main is read by the guide",
            anchors=["src/app.py::main"],
        )
    shown = run_tether("show", new["id"], "--json", cwd=repo)
    assert json.loads(shown.stdout)["files"] == ["docs/guide.md", "src/app.py"]


async def test_new_anchors_in_the_old_anchors_file_name_no_file(repo: Path) -> None:
    """The old memory's file was there only for its anchor: new anchors in that same file do
    not make it one the person named, so it leaves when the new anchor moves, as with the CLI."""
    (repo / "src/util.py").write_text(
        "def load(path):\n    return 1\n\n\ndef helper():\n    return 42\n", encoding="utf-8"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "load")
    ids = []
    for who in ("cli", "mcp"):
        done = run_tether(
            "--json",
            "remember",
            f"{who}: load",
            "-c",
            "gotcha",
            "--anchor",
            "src/util.py::load",
            cwd=repo,
        )
        assert done.code == 0, done.stderr
        ids.append(json.loads(done.stdout)["id"])
    by_cli = run_tether(
        "--json", "supersede", ids[0], "cli: helper", "--anchor", "src/util.py::helper", cwd=repo
    )
    assert by_cli.code == 0, by_cli.stderr
    async with mcp_client(repo) as client:
        by_mcp = await call(
            client,
            "memory_supersede",
            old_id=ids[1],
            summary="mcp: helper",
            anchors=["src/util.py::helper"],
        )
    new_ids = [json.loads(by_cli.stdout)["id"], by_mcp["id"]]
    for memory_id in new_ids:
        text = (repo / ".tether" / "memories" / f"{memory_id}.md").read_text(encoding="utf-8")
        assert "given_files" not in text, text
    assert _files_after_moving_helper(repo, *new_ids) == [["src/app.py"], ["src/app.py"]]
