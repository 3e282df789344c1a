"""The single-name ``anchor:`` of a memory superseded from the editor: carried over as the
symbol anchors are, dropped with them by ``anchors: []``, never left on a memory that names no
file (given for one, it is refused naming the argument)."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall import frontmatter
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


def fields(path: Path) -> dict[str, object]:
    """The front matter of a memory file or draft."""
    return frontmatter.parse(path.read_text(encoding="utf-8"), path).fields


async def test_anchors_given_empty_drop_the_single_name_anchor(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    kept = await lsp.command("tether.supersede", {"memoryId": ws.gotcha})
    assert fields(Path(kept["draft"]))["anchor"] == "save_session"  # not given: carried
    written = await lsp.command(
        "tether.supersede",
        {"memoryId": ws.gotcha, "summary": "saves go via one place", "anchors": []},
    )
    new = fields(ws.memory_file(written["id"]))
    assert "anchor" not in new and new["files"] == ["src/store.py"]
    drafted = await lsp.command("tether.supersede", {"memoryId": written["id"], "anchors": []})
    assert "anchor" not in fields(Path(drafted["draft"]))


async def test_no_file_left_means_no_anchor(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    drafted = await lsp.command("tether.supersede", {"memoryId": ws.gotcha, "files": []})
    draft = fields(Path(drafted["draft"]))
    assert draft["files"] == [] and "anchor" not in draft
    with pytest.raises(Exception, match="'anchor' 'load_session' names a symbol"):
        await lsp.command(
            "tether.supersede",
            {"memoryId": ws.gotcha, "summary": "x y z", "files": [], "anchor": "load_session"},
        )
    assert fields(ws.memory_file(ws.gotcha)).get("status", "active") == "active"  # refused
    with pytest.raises(Exception, match="'anchor' 'load_session' names a symbol"):
        await lsp.command("tether.remember", {"summary": "x y z", "anchor": "load_session"})
    written = await lsp.command(
        "tether.supersede",
        {"memoryId": ws.gotcha, "summary": "sessions are saved whole", "files": []},
    )
    new = fields(ws.memory_file(written["id"]))
    assert new["files"] == [] and "anchor" not in new
