"""``memory_get`` says where a memory's anchored symbols are now, as ``tether show --json``
does: ``anchor_states`` for each anchor, and for one gone from a file that now defines names
spelt close to it (renamed where it is), those names in ``anchor_suggestions``; the same
fields, computed the same way, so an agent reading a gotcha is told its symbol is gone.
``memory_recall`` tells it too: a hit anchored to a symbol the code no longer defines lists it
in ``anchors_gone``, and its ``note`` points to ``memory_get`` for the closest names. A file
the working tree holds otherwise than the index read it (a rename not committed yet) is read
there by ``memory_get`` and for ``anchors_gone``, as by ``show`` and ``check``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, git, make_repo, run_tether

from tests.anchors.test_anchor_suggestions import CORE_PY, renamed_in_place
from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio

FIELDS = ("anchor_states", "anchor_suggestions")
ANCHOR = "src/core.py::load_session"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"src/core.py": CORE_PY})


def shown(cli: Callable[..., CliResult], memory_id: str) -> dict[str, object]:
    """The anchor fields ``tether show --json`` gives for ``memory_id`` (absent ones left out)."""
    done = cli("show", memory_id, "--json")
    assert done.code == 0, done.stderr
    return {key: value for key, value in done.json().items() if key in FIELDS}


async def test_memory_get_names_a_symbol_renamed_in_place_as_show_does(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = renamed_in_place(repo, cli)  # load_session renamed load_sessions, indexed
    [other] = [m["id"] for m in cli("list", "--json").json() if m["id"] != memory_id]
    async with mcp_client(repo) as client:
        got = await call(client, "memory_get", id=memory_id)
        current = await call(client, "memory_get", id=other)
    [state] = got["anchor_states"]
    assert (state["symbol"], state["state"]) == ("src/core.py::load_session", "gone")
    assert got["anchor_suggestions"] == {"src/core.py::load_session": ["load_sessions"]}
    assert {key: got[key] for key in FIELDS} == shown(cli, memory_id)
    # an anchor still defined where it was: its state, and no suggestions field
    [state] = current["anchor_states"]
    assert (state["symbol"], state["state"]) == ("src/core.py::Store.save", "current")
    assert "anchor_suggestions" not in current
    assert {key: current[key] for key in FIELDS if key in current} == shown(cli, other)


async def test_memory_get_reads_a_rename_not_committed_from_the_working_tree(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    done = cli("remember", "sessions load by path", "-c", "gotcha", "--anchor", ANCHOR, "--json")
    assert done.code == 0, done.stderr
    memory_id = done.json()["id"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a memory")
    assert cli("index").code == 0
    async with mcp_client(repo) as client:
        before = await call(client, "memory_get", id=memory_id)
        core = repo / "src/core.py"  # renamed in the working tree only, as `check` reads it
        core.write_text(core.read_text().replace("def load_session(", "def load_sessions("))
        after = await call(client, "memory_get", id=memory_id)
    assert [s["state"] for s in before["anchor_states"]] == ["current"]
    [state] = after["anchor_states"]
    assert (state["symbol"], state["state"]) == (ANCHOR, "gone")
    assert after["anchor_suggestions"] == {ANCHOR: ["load_sessions"]}
    assert {key: after[key] for key in FIELDS} == shown(cli, memory_id)


def by_id(found: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The hits of a ``memory_recall`` answer, by memory id."""
    return {hit["id"]: hit for hit in found["results"]}


async def test_memory_recall_lists_the_anchors_the_code_no_longer_defines(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = renamed_in_place(repo, cli)  # load_session renamed load_sessions, indexed
    [current] = [m["id"] for m in cli("list", "--json").json() if m["id"] != memory_id]
    plain = cli("remember", "core logs nothing", "-c", "pref", "-f", "src/core.py", "--json")
    assert plain.code == 0, plain.stderr  # a memory without anchors
    async with mcp_client(repo) as client:
        found = by_id(await call(client, "memory_recall", files=["src/core.py"]))
    assert set(found) == {memory_id, current, plain.json()["id"]}
    gone = found[memory_id]
    assert gone["anchors_gone"] == ["src/core.py::load_session"]
    assert f"memory_get with id {memory_id!r} names the symbols" in gone["note"]
    # an anchor still defined where it was, and no anchor at all: nothing said
    for hit in (found[current], found[plain.json()["id"]]):
        assert "anchors_gone" not in hit and "note" not in hit


async def test_a_kept_engine_sees_a_symbol_renamed_between_two_recalls(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    done = cli("remember", "sessions load by path", "-c", "gotcha", "--anchor", ANCHOR, "--json")
    assert done.code == 0, done.stderr
    async with mcp_client(repo) as client:
        before = await call(client, "memory_recall", files=["src/core.py"])
        core = repo / "src/core.py"
        core.write_text(core.read_text().replace("def load_session(", "def load_sessions("))
        git(repo, "commit", "-q", "-am", "renamed where it is")  # no `tether index`: the server's
        after = await call(client, "memory_recall", files=["src/core.py"])
    assert "anchors_gone" not in by_id(before)[done.json()["id"]]
    assert by_id(after)[done.json()["id"]]["anchors_gone"] == [ANCHOR]


async def test_memory_recall_reads_a_rename_not_committed_from_the_working_tree(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    done = cli("remember", "sessions load by path", "-c", "gotcha", "--anchor", ANCHOR, "--json")
    assert done.code == 0, done.stderr
    kept = cli(
        "remember", "saves are atomic", "-c", "gotcha", "--anchor", "src/core.py::Store.save"
    )
    assert kept.code == 0, kept.stderr  # anchored in the same file, still defined there
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two memories")
    assert cli("index").code == 0
    async with mcp_client(repo) as client:
        before = by_id(await call(client, "memory_recall", files=["src/core.py"]))
        core = repo / "src/core.py"  # renamed in the working tree only: neither staged nor indexed
        core.write_text(core.read_text().replace("def load_session(", "def load_sessions("))
        after = by_id(await call(client, "memory_recall", files=["src/core.py"]))
        got = await call(client, "memory_get", id=done.json()["id"])
    assert all("anchors_gone" not in hit for hit in before.values())
    gone = after.pop(done.json()["id"])
    assert gone["anchors_gone"] == [ANCHOR] == [s["symbol"] for s in got["anchor_states"]]
    assert f"memory_get with id {done.json()['id']!r} names the symbols" in gone["note"]
    [current] = after.values()
    assert "anchors_gone" not in current and "note" not in current


async def test_outside_a_repository_an_anchored_hit_is_returned_as_it_is(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    done = run_tether(
        "remember", "load_session drops the last byte", "-c", "gotcha", "--global",
        "--anchor", ANCHOR, "--allow-missing", "--json", cwd=plain,
    )  # fmt: skip
    assert done.code == 0, done.stderr
    async with mcp_client(plain) as client:
        found = await call(client, "memory_recall", prompt="load_session last byte")
    [hit] = found["results"]  # no genome to look the anchor up in: nothing said, nothing fails
    assert hit["id"] == done.json()["id"] and "anchors_gone" not in hit
