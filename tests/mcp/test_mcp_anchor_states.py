"""``memory_get`` says where a memory's anchored symbols are now, as ``tether show --json``
does: ``anchor_states`` for each anchor, and for one gone from a file that now defines names
spelt close to it (renamed where it is), those names in ``anchor_suggestions``; the same
fields, computed the same way, so an agent reading a gotcha is told its symbol is gone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, make_repo

from tests.anchors.test_anchor_suggestions import CORE_PY, renamed_in_place
from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio

FIELDS = ("anchor_states", "anchor_suggestions")


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
