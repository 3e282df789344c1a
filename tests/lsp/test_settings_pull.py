"""A pull of the editor's settings replaces the settings the client started with."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


@pytest.mark.init_options({"tether": {"severity": {"gotcha": "off"}, "maxPerFile": 1}})
async def test_a_setting_removed_in_the_editor_stops_applying(lsp: Session, ws: Workspace) -> None:
    """initializationOptions hold the editor's settings at start; once the client answers a
    pull with a table, that table is the editor's settings, and a key it no longer has is back
    to its default (here: the gotcha shown again, as a warning)."""
    if not lsp.is_vscode:
        pytest.skip("Neovim 0.7 cannot be asked for its settings")
    await lsp.open(ws.store_py)
    assert lsp.diagnostics(ws.store_py) == []  # no answer to the start-up pull: the options hold
    lsp.client.set_configuration({"maxPerFile": 2}, section="tether")
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await lsp.wait_until(lambda: lsp.diagnostics(ws.store_py) != [])
    (diagnostic,) = lsp.diagnostics(ws.store_py)
    assert diagnostic.code == ws.gotcha
    assert diagnostic.severity == types.DiagnosticSeverity.Warning


@pytest.mark.init_options({"tether": {"severity": {"gotcha": "off"}}})
async def test_an_empty_pulled_section_keeps_the_start_up_options(
    lsp: Session, ws: Workspace
) -> None:
    """A Neovim config passes its settings as init_options beside an empty `settings.tether`:
    the pull's empty table is no setting removed, so the start-up options hold."""
    if not lsp.is_vscode:
        pytest.skip("Neovim 0.7 cannot be asked for its settings")
    await lsp.open(ws.store_py)
    await lsp.quiet()
    assert lsp.diagnostics(ws.store_py) == []
    before = lsp.publishes[ws.store_py.as_uri()]
    lsp.client.set_configuration({}, section="tether")
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    # the pull is answered, then every open file published again
    await lsp.wait_until(lambda: lsp.publishes[ws.store_py.as_uri()] > before)
    assert lsp.diagnostics(ws.store_py) == []


def watched_globs(lsp: Session) -> list[object]:
    """The glob patterns of every watcher registered and not withdrawn."""
    registrations = lsp.client.registrations  # type: ignore[attr-defined]
    return [w["globPattern"] for r in registrations for w in r.register_options["watchers"]]


async def test_watch_workspace_follows_the_setting(lsp: Session, ws: Workspace) -> None:
    """Turning ``watchWorkspace`` off withdraws the watcher of every file, and turning it on
    again brings it back, without a restart; the memory files stay watched throughout."""
    if not lsp.is_vscode:
        pytest.skip("Neovim 0.7 registers no watchers")
    await lsp.open(ws.store_py)
    await lsp.wait_until(lambda: "**/*" in watched_globs(lsp))
    for watch, present in ((False, False), (True, True)):
        lsp.client.set_configuration({"watchWorkspace": watch}, section="tether")
        lsp.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=None)
        )
        memories = ["**/.tether/memories/*.md"]  # withdrawn, then registered again
        wanted = [*memories, "**/*"] if present else memories
        await lsp.wait_until(lambda w=wanted: sorted(map(str, watched_globs(lsp))) == sorted(w))
