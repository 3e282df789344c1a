"""A guarded memory stays shown, at ``guardSeverity``, whatever the settings say of the other
memories: no category shown, every level off, or ``maxPerFile`` spent on better-ranked ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp import workspace
from tests.lsp.session import Session

pytestmark = pytest.mark.asyncio

OTHERS = ["store writes go through one lock", "session files are small", "keep paths relative"]


@pytest.fixture
def ws(tmp_path: Path) -> workspace.Workspace:
    """The test repository with more gotchas (one pinned) on src/store.py, which rank before
    its decision."""
    built = workspace.build(tmp_path / "repo")
    store = built.open_store()
    try:
        for n, summary in enumerate(OTHERS):
            draft = store.prepare_memory(
                summary=summary, category="gotcha", files=["src/store.py"], author="Dana"
            )
            store.remember(draft.with_changes(pinned=n == 0))
    finally:
        store.close()
    return built


def shown(lsp: Session, ws: workspace.Workspace) -> list[tuple[object, object]]:
    """(memory id, severity) of each diagnostic on src/store.py, in order."""
    return [(d.code, d.severity) for d in lsp.diagnostics(ws.store_py)]


async def guard_decision(lsp: Session, ws: workspace.Workspace) -> None:
    """Guard the decision on src/store.py with src/store.py open."""
    await lsp.open(ws.store_py)
    await lsp.command("tether.guard", {"memoryId": ws.decision, "fromHint": True})


def started_with(options: dict[str, object]) -> object:
    """A parameter whose session starts with ``options`` as its initializationOptions."""
    return pytest.param(options, marks=pytest.mark.init_options(options))


@pytest.mark.parametrize(
    "options",
    [
        started_with({"diagnosticCategories": []}),
        started_with({"severity": "off"}),
        started_with({"severity": "off", "guardSeverity": "error"}),
        started_with({"maxPerFile": 0}),
    ],
)
async def test_a_guard_is_the_one_diagnostic_left(
    lsp_one: Session, ws: workspace.Workspace, options: dict[str, object]
) -> None:
    """``options`` are the initializationOptions the marker sends."""
    await guard_decision(lsp_one, ws)
    assert shown(lsp_one, ws) == [(ws.decision, types.DiagnosticSeverity.Error)]


@pytest.mark.init_options({"maxPerFile": 1})
async def test_a_guard_comes_first_and_does_not_count_against_max_per_file(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    await guard_decision(lsp_one, ws)
    found = shown(lsp_one, ws)
    assert len(found) == 2, found
    assert found[0] == (ws.decision, types.DiagnosticSeverity.Error)
    assert found[1][1] == types.DiagnosticSeverity.Warning


@pytest.mark.init_options({"severity": "off", "guardSeverity": "off"})
async def test_guard_severity_off_shows_it_as_its_category_would_be(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    await guard_decision(lsp_one, ws)
    assert shown(lsp_one, ws) == []


async def test_settings_pushed_later_keep_the_guard(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    await guard_decision(lsp_one, ws)
    for settings in ({"diagnosticCategories": []}, {"severity": "off"}, {"maxPerFile": 0}):
        lsp_one.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tether": settings})
        )
        await lsp_one.settle()
        assert shown(lsp_one, ws) == [(ws.decision, types.DiagnosticSeverity.Error)], settings
