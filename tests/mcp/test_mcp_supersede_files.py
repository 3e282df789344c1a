"""``memory_supersede`` given ``files`` and no ``anchors``: an old symbol anchor in a file left
out is dropped and said in ``anchor_notes``; a guarded memory keeps them all: an agent never
narrows a guard."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_tether

from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio


async def test_new_files_drop_the_anchors_left_out(repo: Path) -> None:
    async with mcp_client(repo) as client:
        old = await call(
            client,
            "memory_write",
            summary="helper must stay pure",
            category="gotcha",
            files=[],
            anchors=["src/util.py::helper"],
        )
        done = await call(
            client,
            "memory_supersede",
            old_id=old["id"],
            summary="the app starts fast",
            files=["src/app.py"],
        )
    assert "src/util.py::helper" in " ".join(done.get("anchor_notes", []))
    shown = run_tether("show", done["id"], "--json", cwd=repo).json()
    assert shown["files"] == ["src/app.py"]
    assert not shown.get("anchors")


async def test_a_guarded_memory_keeps_its_anchors(repo: Path) -> None:
    guarded = run_tether(
        "--json",
        "remember",
        "helper must stay pure",
        "-c",
        "gotcha",
        "--anchor",
        "src/util.py::helper",
        "--guard",
        cwd=repo,
    )
    assert guarded.code == 0, guarded.stderr
    async with mcp_client(repo) as client:
        done = await call(
            client,
            "memory_supersede",
            old_id=guarded.json()["id"],
            summary="the app starts fast",
            files=["src/app.py"],
        )
    assert not done.get("anchor_notes")
    shown = run_tether("show", done["id"], "--json", cwd=repo).json()
    assert shown["guard"] is True
    assert [a["symbol"] for a in shown["anchors"]] == ["src/util.py::helper"]
