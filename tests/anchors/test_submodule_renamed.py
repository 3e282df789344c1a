"""A memory on a file of a submodule keeps it when the submodule is moved to another folder and
the move committed: git's history renames the submodule, never the files in it, so recall, the
pre-edit hook's guard, ``tether list --file``, ``doctor``, ``repoint`` and ``check`` follow the
file through its folder's rename as they follow a renamed file. The real CLI and hook command,
a real submodule."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, git, make_repo

SESSION = "5d2e8f1a-3b4c-4d5e-8f6a-7b8c9d0e1f2a"
Run = Callable[..., CliResult]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository holding the submodule vend/sub (s.py), a guarded memory on vend/sub/s.py,
    then the submodule moved to third/sub, each committed."""
    sub = make_repo(tmp_path / "sub", {"s.py": "def s():\n    return 1\n"})
    top = make_repo(tmp_path / "repo", {"top.py": "x = 1\n"})
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.as_uri(), "vend/sub")
    git(top, "commit", "-q", "-m", "add the submodule")
    return top


def guarded_then_moved(repo: Path, cli: Run) -> str:
    """The guarded memory on vend/sub/s.py, committed, and the submodule moved: its id."""
    made = cli(
        "remember", "s stays pure", "-c", "gotcha", "--guard", "-f", "vend/sub/s.py", "--json"
    )
    assert made.code == 0, made.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the memory")
    assert cli("index").code == 0  # the move is caught up by what reads it next
    (repo / "third").mkdir()
    git(repo, "mv", "vend/sub", "third/sub")
    git(repo, "commit", "-q", "-m", "move the submodule")
    return str(made.json()["id"])


def test_recall_and_list_follow_a_file_through_its_submodule_moved(repo: Path, cli: Run) -> None:
    memory = guarded_then_moved(repo, cli)
    found = cli("--json", "recall", "-f", "third/sub/s.py")
    assert found.code == 0, found.stderr
    [hit] = found.json()["results"]
    assert hit["id"] == memory
    assert "renamed from vend/sub/s.py" in hit["receipt"]
    listed = cli("list", "--file", "third/sub/s.py", "--json")
    assert [m["id"] for m in listed.json()] == [memory]


def test_the_edit_hook_asks_the_guard_of_a_file_whose_submodule_moved(repo: Path, cli: Run) -> None:
    memory = guarded_then_moved(repo, cli)
    payload = {
        "session_id": SESSION,
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(repo / "third/sub/s.py"),
            "old_string": "return 1",
            "new_string": "return 2",
        },
        "tool_use_id": "toolu_1",
    }
    done = cli("hook", "pre-edit", stdin=json.dumps(payload))
    assert done.code == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "ask"
    assert (
        f"[{memory}] covers third/sub/s.py (renamed from vend/sub/s.py)"
        in (answer["permissionDecisionReason"])
    )


def test_doctor_and_repoint_name_the_file_in_the_moved_submodule(repo: Path, cli: Run) -> None:
    memory = guarded_then_moved(repo, cli)
    doctor = cli("doctor")
    assert "git shows vend/sub/s.py -> third/sub/s.py" in doctor.stdout, doctor.stdout
    repointed = cli("repoint", memory, "--apply", "--json")
    assert repointed.code == 0, repointed.stderr
    assert repointed.json()["proposed"] == ["third/sub/s.py"]
    assert cli("doctor").stdout.strip() == "No problems found."


def test_check_finds_the_guard_by_the_name_before_the_submodule_moved(repo: Path, cli: Run) -> None:
    memory = guarded_then_moved(repo, cli)
    sub = repo / "third/sub"
    (sub / "s.py").write_text("def s():\n    return 2\n")
    git(sub, "commit", "-q", "-am", "edit s")
    checked = cli("--json", "check")
    assert checked.code == 1, checked.stdout
    [failure] = checked.json()["failures"]
    assert (failure["id"], failure["path"]) == (memory, "third/sub/s.py")
    assert "the memory names it vend/sub/s.py, its name before a rename" in failure["reason"]
