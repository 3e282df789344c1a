"""``memory_recall`` given a file missing from the working tree (deleted, or a file still to
come that a memory names with ``allow_missing``) recalls the memories naming it, with the note
``tether recall --file`` gives; a typo no memory names is still said to be one. In-process,
through the operation the tool calls, beside the real CLI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import git, run_tether

from mcp_server import operations
from mcp_server.workspace import Workspace

CLI_PREFIX = "tether: "


@pytest.fixture
def ws(repo: Path) -> Iterator[Workspace]:
    workspace = Workspace(repo)
    yield workspace
    workspace.close()


def _remember(repo: Path, summary: str, path: str, *options: str) -> str:
    done = run_tether("remember", summary, "-c", "gotcha", "-f", path, *options, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def _cli_notes(repo: Path, path: str) -> tuple[list[str], list[str]]:
    """The ids ``tether recall --file PATH`` finds, and the notes it says on stderr."""
    done = run_tether("recall", "-f", path, "--no-record", "--json", cwd=repo)
    said = [line.removeprefix(CLI_PREFIX) for line in done.stderr.splitlines() if line]
    return [hit["id"] for hit in done.json()["results"]], said


@pytest.mark.parametrize("how", ["deleted", "still to come"])
def test_recall_of_a_file_not_on_disk_finds_the_memories_naming_it_as_the_cli_does(
    repo: Path, ws: Workspace, how: str
) -> None:
    if how == "deleted":
        path = "src/util.py"
        memory_id = _remember(repo, "util must close the pool", path)
        git(repo, "rm", "-q", path)
        git(repo, "commit", "-qm", "remove util")
    else:
        path = "src/plugin.py"
        memory_id = _remember(repo, "plugins register at import", path, "--allow-missing")
    _remember(repo, "the app starts slowly", "src/app.py")
    cli_ids, cli_notes = _cli_notes(repo, path)

    found = ws.run(operations.recall, prompt=None, files=[path])

    assert [hit["id"] for hit in found["results"]] == [memory_id] == cli_ids
    assert found["results"][0]["receipt"].startswith("via file")
    said = (
        f"{path} is not in the working tree (deleted, or not on this branch); "
        "recalling the memories that name it all the same"
    )
    assert found["notes"] == cli_notes == [said]


def test_a_missing_file_no_memory_names_is_still_said_to_be_a_typo(
    repo: Path, ws: Workspace
) -> None:
    _remember(repo, "the app starts slowly", "src/app.py")

    found = ws.run(operations.recall, prompt=None, files=["src/ap.py"])

    assert found["results"] == []
    assert found["notes"] == [
        "src/ap.py is not a file of this repository; did you mean src/app.py?"
    ]
