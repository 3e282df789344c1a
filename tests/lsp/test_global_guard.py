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


CLI_WORDS = (
    "--guard",
    "--global",
    "tether remember",
    "tether supersede",
    '"global": true argument',
)


async def test_a_global_memory_offers_no_guard_and_refusals_name_the_arguments(
    lsp_one: Session, ws: Workspace
) -> None:
    """Guarding a global memory is always refused, so its diagnostic offers no guard; the
    refusals name ``memoryId`` and ``guard``, never a CLI flag or an argument not given."""
    lsp = lsp_one
    asked = {"summary": "app.py starts slow", "category": "gotcha", "global": True}
    asked["fromHint"] = True  # a command of its own would end the hints
    written = await lsp.command("tether.remember", {**asked, "files": ["src/app.py"]})
    await lsp.open(ws.app_py)
    (shown,) = [d for d in lsp.diagnostics(ws.app_py) if d.code == written["id"]]
    titles = [a.title for a in await lsp.actions(ws.app_py, shown.range, [shown])]
    assert f"Tether: pin gotcha {written['id']}" in titles
    assert f"Tether: guard gotcha {written['id']}" not in titles
    refusals = []
    with pytest.raises(Exception, match=REFUSED) as refused:
        await lsp.command("tether.guard", {"memoryId": written["id"]})
    refusals.append(str(refused.value))
    again = {"memoryId": written["id"], "summary": "app.py starts slower", "guard": True}
    with pytest.raises(Exception, match=REFUSED) as refused:
        await lsp.command("tether.supersede", again)
    refusals.append(str(refused.value))
    pref = await lsp.command("tether.remember", {"summary": "tabs", "category": "pref"})
    with pytest.raises(Exception, match="not a pref") as refused:
        await lsp.command("tether.guard", {"memoryId": pref["id"]})
    refusals.append(str(refused.value))
    for message in refusals:
        assert "memoryId" in message or "tether.supersede" in message, message
        assert not [w for w in CLI_WORDS if w in message], message
