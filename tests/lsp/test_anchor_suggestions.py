"""The editor's ``tether.remember`` and ``tether.supersede`` name the symbols a file defines
spelt closest to an anchored name it does not define, as ``tether remember`` does: in the note
and in ``anchor_suggestions``; the memory is written with the anchor all the same."""

from __future__ import annotations

import pytest

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


async def test_a_mistyped_anchor_names_the_closest_symbols(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    written = await lsp.command(
        "tether.remember",
        {"summary": "sessions load lazily", "anchors": ["src/store.py::load_sesion"]},
    )
    [note] = written["anchor_notes"]
    assert "src/store.py defines no load_sesion; did you mean load_session" in note
    assert written["anchor_suggestions"]["src/store.py::load_sesion"][0] == "load_session"
    shown = await lsp.command("tether.show", {"memoryId": written["id"]})
    assert [a["symbol"] for a in shown["anchors"]] == ["src/store.py::load_sesion"]

    bare = await lsp.command(
        "tether.supersede",
        {"memoryId": ws.gotcha, "summary": "saving is atomic", "anchor": "sav_session"},
    )
    assert bare["anchor_suggestions"]["src/store.py::sav_session"][0] == "save_session"
