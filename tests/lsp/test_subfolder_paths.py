"""A workspace folder below the repository's root (one package of a monorepo opened alone):
the paths in the commands' arguments are repository-relative, as the code actions give them
and as memories keep them, whichever folder the server was started on."""

from __future__ import annotations

import ast
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

LOAD_LINE = 3
"""The line of ``def load_session(path):`` in src/store.py (0-based)."""


async def _remember_about_load_session(lsp: Session, ws: Workspace) -> dict[str, Any]:
    """The arguments the "remember something about load_session…" action carries (read back
    from what pytest-lsp's decoding makes of a code action with a command)."""
    await lsp.open(ws.store_py)
    here = types.Range(types.Position(LOAD_LINE, 6), types.Position(LOAD_LINE, 6))
    actions = await lsp.actions(ws.store_py, here)
    (action,) = [a for a in actions if a.title.startswith("Tether: remember something about load")]
    command = action.command if isinstance(action, types.CodeAction) else action
    assert command is not None
    carried = ast.literal_eval(command.command) if command.command.startswith("{") else None
    arguments = carried["arguments"] if carried else list(command.arguments or [])
    (obj,) = arguments
    return dict(obj)


async def _check_paths_read_from_the_repository_root(lsp: Session, ws: Workspace) -> None:
    offered = await _remember_about_load_session(lsp, ws)
    assert offered["anchors"] == ["src/store.py::load_session"]
    await lsp.command("tether.remember", offered)  # the draft opens: no refusal
    written = await lsp.command("tether.remember", {**offered, "summary": "loading is lazy"})
    assert "anchor_notes" not in written, written
    shown = await lsp.command("tether.show", {"memoryId": written["id"]})
    assert shown["files"] == ["src/store.py"]
    (anchor,) = shown["anchors"]
    assert (anchor["symbol"], anchor["body"] is not None) == ("src/store.py::load_session", True)

    named = {"summary": "the app starts here", "files": ["src/app.py"]}
    app = await lsp.command("tether.remember", named)
    assert (await lsp.command("tether.show", {"memoryId": app["id"]}))["files"] == ["src/app.py"]

    moved = {"memoryId": ws.gotcha, "summary": "saving is atomic", "anchors": offered["anchors"]}
    moved["files"] = ["src/store.py"]
    replaced = await lsp.command("tether.supersede", moved)
    assert "anchor_notes" not in replaced, replaced
    shown = await lsp.command("tether.show", {"memoryId": replaced["id"]})
    assert [a["symbol"] for a in shown["anchors"]] == ["src/store.py::load_session"]

    with pytest.raises(JsonRpcException) as raised:  # a typo: the right name, not the typo
        await lsp.command("tether.remember", {"summary": "x", "files": ["src/stor.py"]})
    refused = str(raised.value)
    assert "files[0] 'src/stor.py' is not in the repository's files" in refused
    assert "did you mean src/store.py?" in refused


@pytest.mark.folders(["src"])
async def test_a_subfolder_reads_paths_from_the_repository_root(
    lsp_one: Session, ws: Workspace
) -> None:
    await _check_paths_read_from_the_repository_root(lsp_one, ws)


@pytest.mark.folders(["src", ""])
async def test_the_subfolder_listed_first_reads_them_the_same(
    lsp_one: Session, ws: Workspace
) -> None:
    await _check_paths_read_from_the_repository_root(lsp_one, ws)
