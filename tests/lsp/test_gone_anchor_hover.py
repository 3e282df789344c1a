"""A memory anchored to a function then renamed where it is: the hover card says the anchor is
gone, names the closest names its file defines now, and how to tie the memory to one, as
``tether show`` and ``tether doctor`` say it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from recall.genome import Genome
from tests.conftest import git
from tests.lsp import workspace
from tests.lsp.session import Session
from tests.lsp.test_symbol_anchors import remember_loader_gotcha

pytestmark = pytest.mark.asyncio


@pytest.fixture
def ws(tmp_path: Path) -> workspace.Workspace:
    """The test repository, plus a memory anchored to load_session, which a commit then
    renames to load_sessions in its own file (the genome indexed before the server starts)."""
    built = workspace.build(tmp_path / "repo")
    store = built.open_store()
    try:
        memory_id = remember_loader_gotcha(store, built.root)
        text = built.store_py.read_text().replace("def load_session(", "def load_sessions(")
        built.store_py.write_text(text)
        git(built.root, "commit", "-q", "-am", "load_session is load_sessions now")
        Genome(built.root, store.conn).refresh()
    finally:
        store.close()
    return replace(built, decision=memory_id)  # the anchored memory's id, under a spare name


async def _hover_card(lsp: Session, ws: workspace.Workspace) -> str:
    """The hover card at the anchored memory's diagnostic in src/store.py, on one line."""
    await lsp.open(ws.store_py)
    [diagnostic] = [d for d in lsp.diagnostics(ws.store_py) if d.code == ws.decision]
    start = diagnostic.range.start
    hover = await lsp.hover(ws.store_py, start.line, start.character)
    assert hover is not None
    card = str(hover.contents.value if hasattr(hover.contents, "value") else hover.contents)
    return " ".join(card.replace("\\", "").split())


async def test_the_hover_names_what_a_gone_anchor_is_now(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    card = await _hover_card(lsp_one, ws)
    # closest first: save_session is spelt close enough to be offered too
    assert "src/store.py::load_session: gone; did you mean load_sessions or save_session?" in card
    assert (
        f"`tether supersede {ws.decision} SUMMARY --anchor src/store.py::NAME` ties the memory "
        "to it"
    ) in card


@pytest.fixture
def ws_saved(tmp_path: Path) -> workspace.Workspace:
    """The test repository, its genome indexed with load_session, then load_session renamed to
    load_sessions in the file on disk only: saved, not staged nor committed."""
    built = workspace.build(tmp_path / "repo")
    store = built.open_store()
    try:
        memory_id = remember_loader_gotcha(store, built.root)
        Genome(built.root, store.conn).refresh()
    finally:
        store.close()
    text = built.store_py.read_text().replace("def load_session(", "def load_sessions(")
    built.store_py.write_text(text)
    return replace(built, decision=memory_id)


async def test_the_hover_reads_a_rename_saved_and_not_committed(
    lsp_one: Session, ws_saved: workspace.Workspace
) -> None:
    card = await _hover_card(lsp_one, ws_saved)
    # as `tether show` says it: the file on disk defines the name no more
    assert "src/store.py::load_session: gone; did you mean load_sessions or save_session?" in card
