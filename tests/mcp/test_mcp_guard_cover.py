"""An agent's supersede cannot narrow a guard: anchors that would cover less of the guarded
code than the old memory's guard did are refused, and the edit hook still asks; a guard that
covers as much or more is kept, a file git shows renamed since named by its new name too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git, make_repo, run_tether

from recall.anchors.guards import narrowed
from recall.anchors.symbols import SymbolAnchor
from recall.model import Memory
from tests.mcp.harness import call, error, mcp_client

pytestmark = pytest.mark.asyncio

CODE = (
    "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef guarded():\n    return 3\n"
    "\n\nclass Box:\n    def open(self):\n        return 4\n"
)


def _asks(repo: Path, session: str, old: str, new: str) -> bool:
    """Whether the pre-edit hook asks the person before an Edit of m.py replacing ``old``."""
    edit = {
        "session_id": session,
        "cwd": str(repo),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / "m.py"), "old_string": old, "new_string": new},
    }
    done = run_tether("hook", "pre-edit", cwd=repo, stdin=json.dumps(edit))
    assert done.code == 0, done.stderr
    answer = json.loads(done.stdout) if done.stdout.strip() else {}
    return answer.get("hookSpecificOutput", {}).get("permissionDecision") == "ask"


async def test_a_whole_file_guard_is_not_narrowed_to_a_symbol(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"m.py": CODE})
    async with mcp_client(repo) as client:
        old = await call(
            client, "memory_write", summary="m.py is frozen", category="decision",
            files=["m.py"], guard=True,
        )  # fmt: skip
        message = await error(
            client, "memory_supersede", old_id=old["id"], summary="m.py is frozen, clarified",
            anchors=["m.py::a"],
        )  # fmt: skip
    assert f"memory {old['id']} is guarded and the anchors given would guard less" in message
    assert "m.py is guarded whole, and m.py::a is only part of it" in message
    assert f"`tether unguard {old['id']}`" in message
    assert _asks(repo, "s1", "    return 3", "    return 5")  # c() is still under the guard
    shown = run_tether("show", old["id"], "--json", cwd=repo).json()
    assert (shown["status"], shown["guard"], shown["anchors"]) == ("active", True, [])


async def test_a_guarded_symbol_is_not_dropped(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"m.py": CODE})
    async with mcp_client(repo) as client:
        old = await call(
            client, "memory_write", summary="guarded() returns three", category="decision",
            files=[], anchors=["m.py::guarded"], guard=True,
        )  # fmt: skip
        message = await error(
            client, "memory_supersede", old_id=old["id"], summary="a() returns one",
            anchors=["m.py::a"],
        )  # fmt: skip
        assert "m.py::guarded is guarded and not among them" in message
        assert "anchors" in message
        assert _asks(repo, "s1", "    return 3", "    return 5")
        # as much or more is kept: the symbol and another, then the whole file
        more = await call(
            client, "memory_supersede", old_id=old["id"], summary="guarded() and a() are fixed",
            anchors=["m.py::guarded", "m.py::a"],
        )  # fmt: skip
        whole = await call(
            client, "memory_supersede", old_id=more["id"], summary="m.py is fixed", anchors=[]
        )
    card = run_tether("show", whole["id"], "--json", cwd=repo).json()
    assert (card["guard"], card["anchors"], card["files"]) == (True, [], ["m.py"])
    assert _asks(repo, "s2", "    return 2", "    return 5")  # b() now under it too


async def test_a_guarded_file_renamed_since_is_weighed_by_its_name_now(repo: Path) -> None:
    """As ``tether supersede`` weighs it: naming the file by its new name keeps the guard as
    wide as it was, and leaving it out is refused naming it as it is now."""
    async with mcp_client(repo) as client:
        old = await call(
            client, "memory_write", summary="util stays pure", category="gotcha",
            files=["src/util.py"], guard=True,
        )  # fmt: skip
        git(repo, "mv", "src/util.py", "src/legacy.py")
        git(repo, "commit", "-q", "-m", "util becomes legacy")
        message = await error(
            client, "memory_supersede", old_id=old["id"], summary="app stays pure",
            files=["src/app.py"],
        )  # fmt: skip
        assert "leave out src/legacy.py (src/util.py in the memory), which it guards" in message
        done = await call(
            client, "memory_supersede", old_id=old["id"], summary="legacy stays pure",
            files=["src/legacy.py"],
        )  # fmt: skip
    card = run_tether("show", done["id"], "--json", cwd=repo).json()
    assert (card["guard"], card["files"]) == (True, ["src/legacy.py"])


async def test_a_guarded_symbol_renamed_since_the_commit_is_kept_by_its_new_name(
    tmp_path: Path,
) -> None:
    """As ``tether supersede`` and ``tether check`` read it: the function renamed in the working
    tree, the new memory anchoring its new name, covers what the guard did."""
    repo = make_repo(tmp_path / "repo", {"m.py": CODE})
    async with mcp_client(repo) as client:
        old = await call(
            client, "memory_write", summary="guarded() returns three", category="decision",
            files=[], anchors=["m.py::guarded"], guard=True,
        )  # fmt: skip
        (repo / "m.py").write_text(CODE.replace("def guarded", "def kept"), encoding="utf-8")
        done = await call(
            client, "memory_supersede", old_id=old["id"], summary="kept() returns three",
            anchors=["m.py::kept"],
        )  # fmt: skip
    card = run_tether("show", done["id"], "--json", cwd=repo).json()
    assert (card["guard"], [a["name"] for a in card["anchors"]]) == (True, ["kept"])


async def test_a_guard_on_a_class_covers_its_methods() -> None:
    def memory(*symbols: str) -> Memory:
        anchors = tuple(SymbolAnchor("m.py", name) for name in symbols)
        return Memory(
            id="0a1b2c3d", category="decision", summary="s", files=("m.py",), anchors=anchors,
            guard=True, created="2026-01-01T00:00:00Z",
        )  # fmt: skip

    old = memory("Box.open")
    assert narrowed(old, ["m.py"], memory("Box").anchors) == ([], [])
    assert narrowed(old, ["m.py"], ()) == ([], [])  # the whole file
    assert narrowed(old, ["m.py"], memory("Box.close").anchors) == (
        [],
        ["m.py::Box.open is guarded and not among them"],
    )
    assert narrowed(memory(), ["n.py"], ()) == (["m.py"], [])


async def test_a_superseded_guard_is_refused_for_what_it_is_not_for_its_files(
    tmp_path: Path,
) -> None:
    # an agent holding an old id is told the memory was replaced, and by which, before any
    # weighing of the files it would leave out
    repo = make_repo(tmp_path / "repo", {"m.py": CODE, "n.py": "N = 1\n"})
    async with mcp_client(repo) as client:
        old = await call(
            client, "memory_write", summary="m.py is frozen", category="decision",
            files=["m.py"], guard=True,
        )  # fmt: skip
        new = await call(client, "memory_supersede", old_id=old["id"], summary="m.py stays frozen")
        message = await error(
            client, "memory_supersede", old_id=old["id"], summary="n.py is frozen",
            files=["n.py"],
        )  # fmt: skip
    assert f"memory {old['id']} is superseded by {new['id']}" in message
    assert "leave out" not in message
    done = run_tether("supersede", old["id"], "n.py is frozen", "-f", "n.py", cwd=repo)
    assert done.code == 2, done
    assert f"memory {old['id']} is superseded by {new['id']}" in done.stderr
    assert "guard" not in done.stderr
