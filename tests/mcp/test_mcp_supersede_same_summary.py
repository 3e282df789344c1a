"""``memory_supersede`` refuses a summary another active memory holds with another category or
other details, as ``memory_write`` does, writing nothing; the memory being superseded may keep
its own summary. In-process, through the operation the tool calls."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_server import writing
from mcp_server.workspace import Workspace
from recall.errors import NothingToDo


@pytest.fixture
def ws(repo: Path) -> Iterator[Workspace]:
    workspace = Workspace(repo)
    yield workspace
    workspace.close()


def _write(ws: Workspace, summary: str, category: str, path: str) -> str:
    done = ws.run_write(writing.write, summary=summary, category=category, files=[path])
    return str(done["id"])


def test_supersede_refuses_a_summary_another_memory_holds(repo: Path, ws: Workspace) -> None:
    bun = _write(ws, "always use bun", "pref", "src/app.py")
    old = _write(ws, "keys need the region", "gotcha", "src/util.py")
    folder = repo / ".tether" / "memories"
    before = sorted(p.name for p in folder.glob("*.md"))

    with pytest.raises(NothingToDo) as refused:
        ws.run_write(writing.supersede, old_id=old, summary="Always use bun", category="decision")

    said = str(refused.value)
    assert f"{bun} already has this summary, but its category is pref, not decision" in said
    assert f"memory_supersede with id {bun!r}" in said and "nothing written" in said
    assert sorted(p.name for p in folder.glob("*.md")) == before
    assert ws.project().get(old).status == "active"


def test_supersede_may_keep_the_superseded_memorys_own_summary(ws: Workspace) -> None:
    old = _write(ws, "always use bun", "pref", "src/app.py")

    done = ws.run_write(
        writing.supersede, old_id=old, summary="always use bun", category="decision"
    )

    assert ws.project().get(done["id"]).category == "decision"
    assert ws.project().get(old).status == "superseded"
