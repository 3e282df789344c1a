"""A workspace folder whose repository's ``core.worktree`` names another repository's work
tree: the server says so once, where the user sees it, serves no store for that folder (never
the other repository's) and goes on answering."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.conftest import git, make_repo, run_tether
from tests.lsp.raw import raw_server


def _contents(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_the_folder_is_said_and_the_other_store_left_alone(tmp_path: Path) -> None:
    other = make_repo(tmp_path / "other", {"a.py": "def a():\n    return 1\n"})
    written = run_tether("remember", "a returns one", "-c", "gotcha", "-f", "a.py", cwd=other)
    assert written.code == 0, written.stderr
    here = make_repo(tmp_path / "here", {"b.py": "b = 2\n"})
    git(here, "config", "core.worktree", "../../other")
    before = _contents(other / ".tether")
    with raw_server(here) as client:
        answer = client.initialize(here)
        assert "result" in answer, answer  # not an internal error
        shown = client.shown_messages(at_most=2)
        assert [m for m in shown if "core.worktree" in m and str(other) in m], shown
        listed = client.response(
            client.request(
                "workspace/executeCommand", {"command": "tether.list", "arguments": [{}]}
            )
        )
        assert "result" in listed, listed  # the server still answers
    assert _contents(other / ".tether") == before
    assert not (here / ".tether").exists()
