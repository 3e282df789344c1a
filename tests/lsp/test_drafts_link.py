"""The drafts folder is the server's own: a link put there (committed, or brought by a pull
after the server opened the store) is refused, and nothing is written where it leads."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def test_a_drafts_link_is_refused_and_nothing_written_outside(
    lsp_one: Session, ws: Workspace
) -> None:
    await lsp_one.open(ws.app_py)
    outside = ws.root.parent / "outside"
    outside.mkdir()
    (ws.root / ".tether" / "drafts").symlink_to("../../outside")
    with pytest.raises(Exception, match=r"drafts is a symbolic link"):
        await lsp_one.command("tether.remember", {"uri": ws.app_py.as_uri()})
    assert list(outside.iterdir()) == []


async def test_the_drafts_ignore_file_is_not_executable(lsp_one: Session, ws: Workspace) -> None:
    await lsp_one.open(ws.app_py)
    result = await lsp_one.command("tether.remember", {"uri": ws.app_py.as_uri()})
    ignore = Path(result["draft"]).parent / ".gitignore"
    assert stat.S_IMODE(ignore.stat().st_mode) & 0o111 == 0
