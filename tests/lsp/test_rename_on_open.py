"""A rename committed while the server runs (in a terminal, by an agent) is followed as soon
as the renamed file is opened: the open finds HEAD moved, the history is read on in the
background, and the file's memories are published once it is, with no save needed. An open
with HEAD where it was starts no indexing."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall.locations import project_location
from recall.store import MemoryStore
from tests.conftest import git
from tests.lsp import workspace
from tests.lsp.session import Session

pytestmark = pytest.mark.asyncio

MOVED_GOTCHA = "move_me keeps its cache per process"


@pytest.fixture
def ws(tmp_path: Path) -> workspace.Workspace:
    """The test repository, with a committed lib/move_me.py and a gotcha naming it."""
    built = workspace.build(tmp_path / "repo")
    built.commit_file("lib/move_me.py", "CACHE = {}\n")
    store = MemoryStore(project_location(built.root), notice=lambda message: None)
    try:
        draft = store.prepare_memory(
            summary=MOVED_GOTCHA, category="gotcha", files=["lib/move_me.py"], author="Dana"
        )
        store.remember(draft)
    finally:
        store.close()
    return built


def _indexings(lsp: Session) -> int:
    return len(lsp.client.progress_reports)


async def test_a_rename_committed_meanwhile_is_followed_when_the_file_is_opened(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    await lsp.open(ws.app_py)
    await lsp.quiet()
    before = _indexings(lsp)
    await lsp.open(ws.store_py)  # HEAD where it was: nothing to read
    await lsp.quiet()
    assert _indexings(lsp) == before

    git(ws.root, "mv", "lib/move_me.py", "lib/moved.py")
    git(ws.root, "commit", "-q", "-m", "rename move_me")
    moved = ws.root / "lib" / "moved.py"
    await lsp.open(moved)
    await lsp.wait_until(lambda: any(MOVED_GOTCHA in d.message for d in lsp.diagnostics(moved)))
    found = [d for d in lsp.diagnostics(moved) if MOVED_GOTCHA in d.message]
    assert "renamed from lib/move_me.py" in found[0].message
    assert _indexings(lsp) == before + 1
