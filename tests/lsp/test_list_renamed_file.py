"""``tether.list`` for a file git renamed since its memories were written: the memories naming
it by its old name are listed as recall brings them back ("via file (renamed from ...)"),
those of the user's global store too, whatever the status asked for, with ``direct`` set and
the other filters applied as for any file."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from recall.locations import global_location, project_location
from recall.store import MemoryStore
from tests.conftest import git
from tests.lsp import workspace
from tests.lsp.session import Session

pytestmark = pytest.mark.asyncio

MOVED_GOTCHA = "move_me keeps its cache per process"
GLOBAL_PREF = "I keep module caches behind a function"


def _write(store: MemoryStore, summary: str, category: str) -> str:
    """A memory on lib/move_me.py in ``store`` (closed after): its id."""
    try:
        draft = store.prepare_memory(
            summary=summary, category=category, files=["lib/move_me.py"], author="Dana"
        )
        return store.remember(draft).id
    finally:
        store.close()


def _quiet(message: str) -> None:
    """A store's notices, unsaid."""


@dataclasses.dataclass(frozen=True)
class Renamed(workspace.Workspace):
    """The test repository, lib/move_me.py renamed to lib/moved.py since a gotcha of the
    project store and a pref of the global store named it."""

    moved: Path
    project_memory: str
    global_memory: str


@pytest.fixture
def ws(tmp_path: Path) -> Renamed:
    """The repository the server opens (the fixtures start it in ``ws``)."""
    built = workspace.build(tmp_path / "repo")
    built.commit_file("lib/move_me.py", "CACHE = {}\n")
    ours = _write(MemoryStore(project_location(built.root), notice=_quiet), MOVED_GOTCHA, "gotcha")
    mine = _write(MemoryStore(global_location(built.root), notice=_quiet), GLOBAL_PREF, "pref")
    git(built.root, "add", "-A")
    git(built.root, "commit", "-q", "-m", "memories")
    git(built.root, "mv", "lib/move_me.py", "lib/moved.py")
    git(built.root, "commit", "-q", "-m", "rename move_me")
    fields = {f.name: getattr(built, f.name) for f in dataclasses.fields(built)}
    moved = built.root / "lib" / "moved.py"
    return Renamed(**fields, moved=moved, project_memory=ours, global_memory=mine)


async def _listed(lsp: Session, ws: Renamed, **filters: object) -> dict[str, dict[str, Any]]:
    """``tether.list`` of the renamed file with ``filters``: its memories by id."""
    answer = await lsp.command("tether.list", {"uri": ws.moved.as_uri(), **filters})
    return {m["id"]: m for m in answer["memories"]}


async def test_every_status_lists_the_memories_on_the_old_name(
    lsp_one: Session, ws: Renamed
) -> None:
    lsp = lsp_one
    ours, mine = ws.project_memory, ws.global_memory

    listed = await _listed(lsp, ws, status="all")
    assert set(listed) == {ours, mine}
    assert listed[mine]["scope"] == "global" and listed[ours]["scope"] == "project"
    assert all(m["direct"] for m in listed.values())
    assert listed[ours]["files"] == ["lib/move_me.py"]  # as the memory names it

    assert set(await _listed(lsp, ws, status="all", category="pref")) == {mine}
    await lsp.command("tether.pin", {"memoryId": mine})
    assert set(await _listed(lsp, ws, status="all", pinned=True)) == {mine}
    assert await _listed(lsp, ws, status="archived") == {}
    await lsp.command("tether.archive", {"memoryId": ours})
    assert set(await _listed(lsp, ws, status="archived")) == {ours}
    assert set(await _listed(lsp, ws, status="all", limit=1)) <= {ours, mine}


async def test_the_ranked_list_marks_the_memories_on_the_old_name_direct(
    lsp_one: Session, ws: Renamed
) -> None:
    lsp = lsp_one
    moved, ours, mine = ws.moved, ws.project_memory, ws.global_memory
    await lsp.indexing_ended()
    await lsp.open(moved)
    await lsp.wait_until(lambda: any(MOVED_GOTCHA in d.message for d in lsp.diagnostics(moved)))

    listed = await _listed(lsp, ws)
    assert set(listed) == {ours, mine}
    for memory in listed.values():
        assert memory["direct"] is True
        assert memory["receipt"].startswith("via file (renamed from lib/move_me.py)")
    assert set(await _listed(lsp, ws, category="gotcha")) == {ours}
