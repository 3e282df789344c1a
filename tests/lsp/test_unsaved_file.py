"""Remembering something about a file the editor holds open but that is not on disk (a new
buffer never saved, a file deleted while open): the memory is written naming it, and the
answer says the file is not on disk yet. A path the editor does not hold is still refused
as a typo."""

from __future__ import annotations

import ast

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from recall.anchors.write import record_anchors
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

NOT_ON_DISK = "is not on disk yet"
LOADER = "def load_config():\n    return {}\n"


async def test_remember_for_an_open_file_not_on_disk(lsp_one: Session, ws: Workspace) -> None:
    loader = ws.root / "src" / "loader.py"
    await lsp_one.open(loader, LOADER)
    assert not loader.exists()
    arguments = {"uri": loader.as_uri(), "summary": "config is read once, at start"}
    written = await lsp_one.command("tether.remember", arguments)
    assert any(NOT_ON_DISK in note and "src/loader.py" in note for note in written["file_notes"])
    shown = await lsp_one.command("tether.show", {"memoryId": written["id"]})
    assert shown["files"] == ["src/loader.py"]
    # named in files rather than by its uri, it is the same open buffer
    named = {"summary": "the loader never writes", "files": ["src/loader.py"]}
    again = await lsp_one.command("tether.remember", named)
    assert any(NOT_ON_DISK in note for note in again["file_notes"])


async def test_the_remember_action_on_an_unsaved_file_opens_a_draft(
    lsp_one: Session, ws: Workspace
) -> None:
    loader = ws.root / "src" / "loader.py"
    await lsp_one.open(loader, LOADER)
    start = types.Position(0, 0)
    actions = await lsp_one.actions(loader, types.Range(start, start))
    [action] = [a for a in actions if a.title == "Tether: remember something about this file…"]
    draft = await lsp_one.run_action(action)
    assert any(NOT_ON_DISK in note for note in draft["file_notes"])
    assert "  - src/loader.py" in (ws.root / draft["draft"]).read_text()
    assert any(NOT_ON_DISK in m.message for m in lsp_one.client.messages)


async def test_a_missing_file_the_editor_does_not_hold_is_still_refused(
    lsp_one: Session, ws: Workspace
) -> None:
    folder = ws.root / ".tether" / "memories"
    before = sorted(p.name for p in folder.iterdir())
    await lsp_one.open(ws.root / "src" / "loader.py", LOADER)  # open, but not the one named
    elsewhere = ws.root / "src" / "lodaer.py"
    for arguments in (
        {"uri": elsewhere.as_uri(), "summary": "x"},
        {"summary": "x", "files": ["src/lodaer.py"]},
    ):
        with pytest.raises(JsonRpcException) as raised:
            await lsp_one.command("tether.remember", arguments)
        assert "'src/lodaer.py' is not in the repository's files" in str(raised.value)
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written


async def test_memories_of_an_open_file_not_on_disk_are_shown_and_recalled(
    lsp_one: Session, ws: Workspace
) -> None:
    """An open buffer counts as present for recall: a new one never saved gets the memory
    written for it, and a file deleted while open keeps its gotcha at the next change."""
    loader = ws.root / "src" / "loader.py"
    await lsp_one.open(loader, LOADER)
    arguments = {"uri": loader.as_uri(), "summary": "config is read once", "fromHint": True}
    written = await lsp_one.command("tether.remember", arguments)
    assert [d.code for d in lsp_one.diagnostics(loader)] == [written["id"]]
    await lsp_one.change(loader, LOADER + "# more\n")
    assert [d.code for d in lsp_one.diagnostics(loader)] == [written["id"]]
    recalled = await lsp_one.command("tether.recall", {"uri": loader.as_uri(), "fromHint": True})
    assert [r["id"] for r in recalled["results"]] == [written["id"]]

    await lsp_one.open(ws.app_py)
    assert [d.code for d in lsp_one.diagnostics(ws.app_py)] == [ws.app_gotcha]
    text = ws.app_py.read_text()
    ws.app_py.unlink()
    await lsp_one.change(ws.app_py, text + "# more\n")
    assert [d.code for d in lsp_one.diagnostics(ws.app_py)] == [ws.app_gotcha]


TYPED = "\n\ndef brand_new(x):\n    return x * 3\n"


def _hash_once_saved(ws: Workspace, path: str, name: str, text: str) -> str | None:
    """The body hash the symbol index reads for ``name`` once ``text`` is saved at ``path``
    (what the file held before is put back)."""
    target = ws.root / path
    before = target.read_text() if target.exists() else None
    target.write_text(text)
    try:
        (anchor,), _ = record_anchors(ws.root, [(path, name)])
    finally:
        if before is None:
            target.unlink()
        else:
            target.write_text(before)
    return anchor.body


async def test_an_anchor_on_a_definition_typed_and_not_saved_gets_its_body_hash(
    lsp_one: Session, ws: Workspace
) -> None:
    """The "remember something about NAME…" action on a function typed in the buffer records
    the body's hash from the open document, as the index will read it once the file is
    saved; so does an anchor into a new buffer never saved."""
    await lsp_one.open(ws.app_py)
    text = ws.app_py.read_text() + TYPED
    await lsp_one.change(ws.app_py, text)
    line = text.splitlines().index("def brand_new(x):")
    here = types.Range(types.Position(line, 6), types.Position(line, 6))
    actions = await lsp_one.actions(ws.app_py, here)
    [action] = [a for a in actions if "brand_new" in a.title]
    carried = ast.literal_eval(action.command)  # pytest-lsp's decoding of a code action
    [offered] = carried["arguments"]
    assert offered["anchors"] == ["src/app.py::brand_new"]
    written = await lsp_one.command("tether.remember", {**offered, "summary": "brand_new triples"})
    assert "anchor_notes" not in written, written
    shown = await lsp_one.command("tether.show", {"memoryId": written["id"]})
    [anchor] = shown["anchors"]
    assert anchor["body"] is not None
    assert anchor["body"] == _hash_once_saved(ws, "src/app.py", "brand_new", text)

    loader = ws.root / "src" / "loader.py"
    await lsp_one.open(loader, LOADER)
    arguments = {"summary": "config is cached", "anchors": ["src/loader.py::load_config"]}
    again = await lsp_one.command("tether.remember", arguments)
    assert "anchor_notes" not in again, again
    [anchor] = (await lsp_one.command("tether.show", {"memoryId": again["id"]}))["anchors"]
    assert anchor["body"] == _hash_once_saved(ws, "src/loader.py", "load_config", LOADER)
    assert anchor["body"] is not None


async def test_its_memory_file_says_the_file_is_open_not_saved_until_saved_or_closed(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    loader = ws.root / "src" / "loader.py"
    await lsp.open(loader, LOADER)
    arguments = {"uri": loader.as_uri(), "summary": "config is read once, at start"}
    written = await lsp.command("tether.remember", arguments)
    memory_file = ws.memory_file(written["id"])
    await lsp.open(memory_file, language="markdown")

    def said() -> list[tuple[str, int]]:
        return [(d.message, int(d.severity or 0)) for d in lsp.diagnostics(memory_file)]

    info = int(types.DiagnosticSeverity.Information)
    unsaved = "src/loader.py is not on disk yet: it is open in the editor, not saved; "
    assert said() == [(unsaved + "the memory shows on it there", info)]
    await lsp.save(loader, LOADER)
    assert said() == []
    loader.unlink()  # deleted while open: open, so its memories still show on it
    await lsp.change(loader, LOADER + "\n")
    await lsp.close(ws.app_py)  # any other file's close leaves it as it was
    await lsp.close(memory_file)
    await lsp.open(memory_file, language="markdown")
    assert said() == [(unsaved + "the memory shows on it there", info)]
    await lsp.close(loader)
    gone = "src/loader.py is not in the working tree; this memory will not surface for it"
    assert said() == [(gone, info)]
