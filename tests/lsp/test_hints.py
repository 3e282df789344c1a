"""The hint policy as the server applies it: quiet for ten turns after a save, a session budget
that pinned memories pierce, and silence once memory is asked for unprompted."""

from __future__ import annotations

import pytest
from lsprotocol import types

from recall.policy.usage import counters
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def save_turn(lsp: Session, ws: Workspace, step: int) -> None:
    """One turn: an edit and a save of a touched file."""
    text = ws.store_py.read_text() + f"# edit {step}\n"
    await lsp.change(ws.store_py, text)
    await lsp.save(ws.store_py, text)


async def test_quiet_for_ten_turns_then_back(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    await lsp.indexing_ended()  # the index free: the usage counts are written, not postponed
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]  # turn 0
    for turn in range(1, 11):
        await save_turn(lsp, ws, turn)
        assert lsp.diagnostics(ws.store_py) == [], f"turn {turn} should be quiet"
    await save_turn(lsp, ws, 11)
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]  # turn 11
    store = ws.open_store()
    try:  # surfaced once per turn it was shown, never per keystroke
        assert counters(store.conn, ws.gotcha)["surfaced"] == 2
    finally:
        store.close()


async def test_asking_for_memory_ends_the_hints(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    await lsp.open(ws.app_py)
    assert lsp.diagnostics(ws.store_py) and lsp.diagnostics(ws.app_py)
    await lsp.command("tether.show", {"memoryId": ws.gotcha, "fromHint": True})
    assert lsp.diagnostics(ws.store_py)  # a quick fix on a hint is not asking unprompted
    await lsp.command("tether.recall", {"uri": ws.app_py.as_uri()})
    assert lsp.diagnostics(ws.store_py) == []
    assert lsp.diagnostics(ws.app_py) == []


async def test_the_servers_own_file_actions_leave_the_hints_on(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    await lsp.open(ws.app_py)
    shown = {ws.store_py: lsp.diagnostics(ws.store_py), ws.app_py: lsp.diagnostics(ws.app_py)}
    assert all(shown.values())
    offered = await lsp.actions(ws.app_py, types.Range(types.Position(0, 0), types.Position(0, 0)))
    by_title = {a.title: a for a in offered}
    for title in (
        "Tether: show memories for this file",
        "Tether: remember something about this file…",
    ):
        await lsp.run_action(by_title[title])
        for path, diagnostics in shown.items():
            assert lsp.diagnostics(path) == diagnostics, f"{title} stopped the hints"


@pytest.mark.init_options({"hintSessionBudget": 1})
async def test_budget_and_pinned_pierce_it(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]  # spends the budget
    await lsp.open(ws.app_py)
    assert lsp.diagnostics(ws.app_py) == []  # over budget
    await lsp.command("tether.pin", {"memoryId": ws.app_gotcha, "fromHint": True})
    assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]  # pinned pierce


async def test_a_guard_stays_up_through_quiet_turns_and_an_unprompted_recall(
    lsp_one: Session, ws: Workspace
) -> None:
    """A guard is not a hint: with editor autosave a turn passes every second, and a guarded
    memory's error would be gone before the edit under it was looked at."""
    lsp = lsp_one
    await lsp.open(ws.store_py)
    await lsp.indexing_ended()
    await lsp.command("tether.guard", {"memoryId": ws.gotcha, "fromHint": True})
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
    for turn in range(1, 4):
        await save_turn(lsp, ws, turn)
        assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha], turn
    await lsp.command("tether.recall", {"uri": ws.app_py.as_uri()})  # hints end; guards stay
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
    start = lsp.diagnostics(ws.store_py)[0].range.start
    hover = await lsp.hover(ws.store_py, start.line, start.character)
    assert hover is not None and ws.gotcha in str(hover.contents)
