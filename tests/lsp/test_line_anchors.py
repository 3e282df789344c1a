"""``tether.remember`` with a line range ``anchor``: one naming no line (line 0, reversed) is
refused naming the argument, nothing written; one past the end of the file is written with a
note in ``anchor_notes``, as the CLI says it."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def test_impossible_line_anchors_are_refused(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    before = sorted((ws.root / ".tether" / "memories").iterdir())
    for anchor in ("L0-L2", "L5-L2"):
        with pytest.raises(JsonRpcException) as raised:
            await lsp.command(
                "tether.remember",
                {"uri": ws.app_py.as_uri(), "summary": "lines", "anchor": anchor},
            )
        message = str(raised.value)
        assert f"'anchor' {anchor!r} is not a line range" in message
        assert "give it as L<first>-L<last>" in message and "--anchor" not in message
    with pytest.raises(JsonRpcException):  # a draft is checked as a write is
        await lsp.command("tether.remember", {"uri": ws.app_py.as_uri(), "anchor": "L0"})
    assert sorted((ws.root / ".tether" / "memories").iterdir()) == before


async def test_a_line_anchor_past_the_end_is_written_with_a_note(
    lsp_one: Session, ws: Workspace
) -> None:
    lines = len(ws.app_py.read_text(encoding="utf-8").splitlines())
    done = await lsp_one.command(
        "tether.remember", {"uri": ws.app_py.as_uri(), "summary": "far", "anchor": "L900-L990"}
    )
    assert ws.memory_file(done["id"]).exists()
    (note,) = done["anchor_notes"]
    assert f"'anchor' 'L900-L990' reaches past the end of the file (src/app.py has {lines}" in note
