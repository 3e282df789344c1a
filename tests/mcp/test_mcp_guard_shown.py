"""An agent is told a memory is guarded (an edit it covers stops for a person): ``memory_get``
carries ``guard`` and what else ``tether show --json`` says of the memory's files and review
(``confirmed``, ``former_files``, ``files_now``, ``spot_check``), from the same function; a
``memory_list`` entry and a ``memory_recall`` hit say ``guard: true`` when it is. In-process,
through the operations the tools call, beside the real CLI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import git, run_tether

from mcp_server import operations
from mcp_server.workspace import Workspace

SHOWN_KEYS = ("guard", "confirmed", "former_files", "files_now", "spot_check", "anchor_states")


@pytest.fixture
def ws(repo: Path) -> Iterator[Workspace]:
    workspace = Workspace(repo)
    yield workspace
    workspace.close()


def _remember(repo: Path, summary: str, path: str, *options: str) -> str:
    done = run_tether("remember", summary, "-c", "gotcha", "-f", path, *options, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def test_get_says_the_guard_and_the_files_as_show_does(repo: Path, ws: Workspace) -> None:
    guarded = _remember(repo, "retries stay at three", "src/app.py", "--guard")
    moved = _remember(repo, "the helper caches forever", "src/util.py")
    git(repo, "mv", "src/util.py", "src/helpers.py")
    git(repo, "commit", "-qm", "rename util")

    for memory_id in (guarded, moved):
        got = ws.run(operations.get, memory_id=memory_id)
        shown = run_tether("show", "--json", memory_id, cwd=repo).json()
        assert {k: got[k] for k in SHOWN_KEYS} == {k: shown[k] for k in SHOWN_KEYS}
    assert ws.run(operations.get, memory_id=guarded)["guard"] is True
    card = ws.run(operations.get, memory_id=moved)
    assert card["guard"] is False
    assert card["files_now"] == {"src/util.py": "renamed to src/helpers.py"}


def test_list_and_recall_say_guard_when_a_memory_has_one(repo: Path, ws: Workspace) -> None:
    guarded = _remember(repo, "retries stay at three", "src/app.py", "--guard")
    plain = _remember(repo, "app start reads the config", "src/app.py")

    listed = {m["id"]: m for m in ws.run(operations.list_memories)["memories"]}
    found = ws.run(operations.recall, prompt=None, files=["src/app.py"])
    hits = {hit["id"]: hit for hit in found["results"]}

    for entries in (listed, hits):
        assert entries[guarded]["guard"] is True
        assert "guard" not in entries[plain]
