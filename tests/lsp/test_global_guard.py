"""The editor's commands write no guard in the global store, where it would protect nothing:
the refusal names the command's own arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

REFUSED = "a guard protects the files of one repository, and the global store belongs to none"


async def test_remember_guard_and_supersede_refuse_a_global_guard(
    lsp_one: Session, ws: Workspace, tether_home: Path
) -> None:
    lsp = lsp_one
    asked = {"summary": "app.py is frozen", "category": "decision", "global": True}
    asked["files"] = ["src/app.py"]
    for given in ({**asked, "guard": True}, {"uri": ws.app_py.as_uri(), **asked, "guard": True}):
        with pytest.raises(Exception, match=REFUSED) as refused:
            await lsp.command("tether.remember", given)
        assert 'drop the "global": true argument' in str(refused.value)
        assert "--global" not in str(refused.value)
    draft = {"uri": ws.app_py.as_uri(), "category": "decision", "global": True, "guard": True}
    with pytest.raises(Exception, match=REFUSED):
        await lsp.command("tether.remember", draft)
    assert not list((tether_home / "memories").glob("*.md"))
    written = await lsp.command("tether.remember", asked)
    with pytest.raises(Exception, match="is in the global store"):
        await lsp.command("tether.guard", {"memoryId": written["id"]})
    again = {"memoryId": written["id"], "summary": "app.py stays frozen", "guard": True}
    with pytest.raises(Exception, match=REFUSED):
        await lsp.command("tether.supersede", again)
