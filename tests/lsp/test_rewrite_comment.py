"""Pinning and unpinning from the editor rewrite the ``pinned:`` line of the memory file and
keep the comment a person wrote at its end."""

from __future__ import annotations

import pytest

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def test_pin_and_unpin_keep_the_comment(lsp_one: Session, ws: Workspace) -> None:
    path = ws.memory_file(ws.gotcha)
    original = path.read_text(encoding="utf-8")
    assert "\npinned: false\n" in original
    commented = original.replace("\npinned: false\n", "\npinned: false  # keep unpinned?\n")
    path.write_text(commented, encoding="utf-8")
    await lsp_one.command("tether.pin", {"memoryId": ws.gotcha})
    assert "\npinned: true  # keep unpinned?\n" in path.read_text(encoding="utf-8")
    await lsp_one.command("tether.unpin", {"memoryId": ws.gotcha})
    assert path.read_text(encoding="utf-8") == commented
