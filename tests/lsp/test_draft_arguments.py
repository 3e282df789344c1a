"""A draft opened by ``tether.remember`` without a summary carries every argument given, as a
direct write does: the bare ``anchor`` the one file defines becomes its symbol anchor, and the
pin, guard, author and source are in the draft's front matter."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall import frontmatter
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def test_a_draft_keeps_the_anchor_and_the_rest(lsp_one: Session, ws: Workspace) -> None:
    await lsp_one.open(ws.store_py)
    result = await lsp_one.command(
        "tether.remember",
        {
            "uri": ws.store_py.as_uri(),
            "category": "decision",
            "anchor": "save_session",
            "anchors": ["src/app.py::nowhere"],
            "pinned": True,
            "guard": True,
            "author": "Robin",
            "source": "agent",
            "details": "why it is so",
        },
    )
    draft = Path(result["draft"])
    parsed = frontmatter.parse(draft.read_text(encoding="utf-8"), draft)
    fields = parsed.fields
    assert fields["files"] == ["src/store.py", "src/app.py"]
    symbols = [a if isinstance(a, str) else a.get("symbol") for a in fields["anchors"]]
    assert any("src/store.py::save_session" in str(s) for s in symbols), fields["anchors"]
    assert any("src/app.py::nowhere" in str(s) for s in symbols), fields["anchors"]
    assert fields["pinned"] is True
    assert fields["guard"] is True
    assert fields["author"] == "Robin"
    assert fields["source"] == "agent"
    assert "why it is so" in draft.read_text(encoding="utf-8").split("---", 2)[2]


async def test_a_draft_keeps_a_line_range_anchor(lsp_one: Session, ws: Workspace) -> None:
    await lsp_one.open(ws.store_py)
    result = await lsp_one.command(
        "tether.remember", {"uri": ws.store_py.as_uri(), "anchor": "L3-L4"}
    )
    draft = Path(result["draft"])
    fields = frontmatter.parse(draft.read_text(encoding="utf-8"), draft).fields
    assert fields["anchor"] == "L3-L4"


async def test_a_draft_refuses_what_a_write_refuses(lsp_one: Session, ws: Workspace) -> None:
    await lsp_one.open(ws.store_py)
    for bad in ({"anchor": "a\nb"}, {"source": "nobody"}):
        with pytest.raises(Exception, match=r"anchor|source"):
            await lsp_one.command("tether.remember", {"uri": ws.store_py.as_uri(), **bad})
    assert not list((ws.root / ".tether" / "drafts").glob("*.md"))
