"""A workspace folder opened through a symbolic link: its memory files, named by the link's
path, are memory files all the same, and a file reached by the other path (the link's when the
folder is the real one, the real one when the folder is the link) is the same file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp import workspace
from tests.lsp.session import Session
from tests.lsp.test_drafts import NEW, fill_and_save

pytestmark = pytest.mark.asyncio


@pytest.fixture
def ws(tmp_path: Path, request: pytest.FixtureRequest) -> workspace.Workspace:
    """The test repository, seen through a link to it (the editor opened the link); with the
    parameter ``"real"``, opened by its real path, the link still made beside it."""
    built = workspace.build(tmp_path / "repo")
    link = tmp_path / "linked"
    link.symlink_to(built.root, target_is_directory=True)
    if getattr(request, "param", "link") == "real":
        return built
    return replace(
        built,
        root=link,
        store_py=link / "src" / "store.py",
        app_py=link / "src" / "app.py",
        notes=link / "docs" / "notes.md",
    )


async def test_a_memory_file_through_the_link_is_checked_as_one(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    lsp = lsp_one
    memory = ws.memory_file(ws.gotcha)
    assert memory.parent.parent.parent.is_symlink()
    broken = "---\ncategory: gotch\nfiles:\n  - src/store.py\n---\nsession save\n"
    await lsp.open(memory, text=broken, language="markdown")
    (problem,) = lsp.diagnostics(memory)
    assert problem.code == "memory-file" and "gotch" in problem.message
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    assert await lsp.actions(memory, top) == []  # no "remember something about this file"
    await lsp.open(ws.store_py)  # the code beside it is served through the link as before
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]


async def test_a_draft_through_the_link_is_written_and_cleaned_up(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = ws.root / ".tether" / "drafts" / Path(result["draft"]).name  # named by the link
    assert draft.exists() and not Path(result["draft"]).is_relative_to(ws.root)
    await fill_and_save(lsp, draft, NEW)
    assert NEW in ws.memory_file(result["id"]).read_text(encoding="utf-8")
    await lsp.close(draft)  # as its memory file holds it: removed
    assert not draft.exists()


def _other_side(ws: workspace.Workspace, path: Path) -> Path:
    """``path`` reached the other way: through the link when the folder is the real one, by
    its real path when the folder is the link."""
    link = ws.root.parent / "linked"
    real = ws.root.parent / "repo"
    folder, other = (link, real) if ws.root == link else (real, link)
    return other / path.relative_to(folder)


@pytest.mark.parametrize("ws", ["link", "real"], indirect=True)
async def test_a_file_reached_the_other_way_has_its_memories(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    lsp = lsp_one
    store_py = _other_side(ws, ws.store_py)
    assert store_py.resolve() == ws.store_py.resolve() and store_py != ws.store_py
    await lsp.open(store_py)
    assert {d.code for d in lsp.diagnostics(store_py)} >= {ws.gotcha}
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    assert await lsp.actions(store_py, top) != []
    app_py = _other_side(ws, ws.app_py)
    done = await lsp.command(
        "tether.remember", {"uri": app_py.as_uri(), "summary": "the app starts lazily"}
    )
    written = ws.memory_file(done["id"]).read_text(encoding="utf-8")
    assert "  - src/app.py\n" in written  # named relative to the repository, as usual
