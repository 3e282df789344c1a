"""Open → the gotcha is published at once; change → published again; anchors give the range."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.workspace import APP_GOTCHA, GOTCHA, Workspace

pytestmark = pytest.mark.asyncio


async def test_open_publishes_gotchas(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.store_py)
    found = lsp.diagnostics(ws.store_py)
    assert len(found) == 1, found  # the decision on the same file is not shown by default
    diagnostic = found[0]
    assert diagnostic.source == "tether"
    assert diagnostic.code == ws.gotcha
    assert diagnostic.message == f'gotcha "{GOTCHA}" [{ws.gotcha}] — review before editing'
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    line = ws.store_py.read_text().splitlines().index("def save_session(path, data):")
    assert diagnostic.range == types.Range(  # the anchor: the symbol where it is defined
        types.Position(line, 4), types.Position(line, 4 + len("save_session"))
    )

    await lsp.open(ws.app_py)  # a memory without an anchor sits on the first line
    (first,) = lsp.diagnostics(ws.app_py)
    assert first.code == ws.app_gotcha
    assert APP_GOTCHA in first.message
    width = len(ws.app_py.read_text().splitlines()[0])
    assert first.range == types.Range(types.Position(0, 0), types.Position(0, width))

    await lsp.open(ws.notes, language="markdown")  # no memories: an empty publish
    assert ws.notes.as_uri() in lsp.client.diagnostics
    assert lsp.diagnostics(ws.notes) == []


async def test_change_republishes_and_follows_the_anchor(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.store_py)
    before = lsp.diagnostics(ws.store_py)[0].range.start.line
    text = "# a comment\n# another\n" + ws.store_py.read_text()
    lsp.client.diagnostics.pop(ws.store_py.as_uri())
    await lsp.change(ws.store_py, text)
    (moved,) = lsp.diagnostics(ws.store_py)
    assert moved.range.start.line == before + 2
    # a client that never bumps the version still gets a fresh publish on every change
    lsp.client.diagnostics.pop(ws.store_py.as_uri())
    await lsp.change(ws.store_py, "save_session = None\n" + text, bump=False)
    (again,) = lsp.diagnostics(ws.store_py)
    assert again.code == ws.gotcha
    assert again.range.start.line == before + 3  # the definition wins over the first mention
    await lsp.close(ws.store_py)
    assert lsp.diagnostics(ws.store_py) == []  # withdrawn on close


async def test_a_burst_of_changes_is_coalesced(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    text = ws.store_py.read_text()
    before = lsp.publishes[ws.store_py.as_uri()]
    for step in range(1, 201):  # a script replaying edits, far faster than anyone types
        await lsp.change(ws.store_py, "# burst\n" * step + text, settle=False)
    await lsp.settle()  # a request: whatever the burst deferred is published first
    published = lsp.publishes[ws.store_py.as_uri()] - before
    assert 1 <= published < 200
    (last,) = lsp.diagnostics(ws.store_py)  # and the last state is the one shown
    line = text.splitlines().index("def save_session(path, data):")
    assert last.range.start.line == line + 200


async def test_a_memory_file_given_another_memorys_id_is_an_error_on_that_line(
    lsp_one: Session, ws: Workspace
) -> None:
    """Saved so, the store holds two files with one id and skips one of them: a live memory
    would be gone with no more than a line in the log."""
    lsp = lsp_one
    memory = ws.memory_file(ws.gotcha)
    text = memory.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    line = next(n for n, row in enumerate(lines) if row.startswith("id: "))
    assert ws.gotcha in lines[line]  # written quoted when it is all digits
    lines[line] = f'id: "{ws.app_gotcha}"\n'
    taken = "".join(lines)
    await lsp.open(memory, text=taken, language="markdown")
    (problem,) = lsp.diagnostics(memory)
    assert problem.severity == types.DiagnosticSeverity.Error
    assert f"id {ws.app_gotcha} is the id of {ws.app_gotcha}.md already" in problem.message
    assert problem.range.start.line == line
    await lsp.change(memory, text)  # its own id back: nothing to say
    assert lsp.diagnostics(memory) == []
