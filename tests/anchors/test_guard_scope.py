"""A guard on a symbol asks about the edits of that symbol's code only: the real pre-edit hook
command, a real repository, the file as it is on disk. Whatever cannot be located (a Write, a
replaced text not in the file, a file that does not parse) asks, as a guard on the whole file
does."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, git, make_repo

SESSION = "7a1c2e3f-4b5d-4e6f-8a7b-9c0d1e2f3a4b"

STORE = """\
class Store:
    def save(self, row):
        self.rows.append(row)
        return len(self.rows)

    def load(self, key):
        return self.rows[key]


class Other:
    def save(self, row):
        return row
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo", {"src/store.py": STORE, "src/other.py": "def helper():\n    return 1\n"}
    )


def pre_edit(
    cli: Callable[..., CliResult], repo: Path, path: str, tool: str, **tool_input: Any
) -> dict[str, Any] | None:
    """The real hook command's answer to one edit (None: it said nothing)."""
    payload = {
        "session_id": SESSION,
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"file_path": str(repo / path), **tool_input},
    }
    done = cli("hook", "pre-edit", stdin=json.dumps(payload))
    assert (done.code, done.stderr) == (0, "")
    return json.loads(done.stdout)["hookSpecificOutput"] if done.stdout else None


def asks(answer: dict[str, Any] | None) -> bool:
    return answer is not None and answer.get("permissionDecision") == "ask"


def guard(cli: Callable[..., CliResult], *where: str) -> str:
    summary = "save appends before counting"
    done = cli("remember", summary, "-c", "decision", "--guard", "--json", *where)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def edit(old: str, new: str = "x") -> dict[str, str]:
    return {"old_string": old, "new_string": new}


def test_an_edit_asks_only_inside_the_guarded_symbol(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, "--anchor", "src/store.py::Store.save")
    inside = pre_edit(cli, repo, "src/store.py", "Edit", **edit("        return len(self.rows)"))
    assert asks(inside)
    assert "(symbol Store.save)" in inside["permissionDecisionReason"]
    # the other method of the class, and a method of the same name in another class
    assert not asks(pre_edit(cli, repo, "src/store.py", "Edit", **edit("return self.rows[key]")))
    assert not asks(pre_edit(cli, repo, "src/store.py", "Edit", **edit("        return row\n")))
    # a MultiEdit asks when one of its edits reaches the symbol
    multi = [edit("return self.rows[key]"), edit("self.rows.append(row)")]
    assert asks(pre_edit(cli, repo, "src/store.py", "MultiEdit", edits=multi))
    assert not asks(pre_edit(cli, repo, "src/store.py", "MultiEdit", edits=multi[:1]))


def test_the_range_is_the_symbol_as_the_file_is_now(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, "--anchor", "src/store.py::Store.load")
    moved = STORE.replace("    def load(self, key):\n        return self.rows[key]\n", "")
    moved = moved.replace("class Other:", "class Other:\n    pass\n\n\nclass Store2:")
    moved += "\n\nclass Store:\n    def load(self, key):\n        return self.rows[key]\n"
    (repo / "src/store.py").write_text(moved)
    git(repo, "commit", "-qam", "load moves to the end")
    assert asks(pre_edit(cli, repo, "src/store.py", "Edit", **edit("return self.rows[key]")))
    assert not asks(pre_edit(cli, repo, "src/store.py", "Edit", **edit("self.rows.append(row)")))


def test_what_cannot_be_located_asks(repo: Path, cli: Callable[..., CliResult]) -> None:
    guard(cli, "--anchor", "src/store.py::Store.save")
    path = "src/store.py"
    assert asks(pre_edit(cli, repo, path, "Write", content="class Store:\n    pass\n"))
    assert asks(pre_edit(cli, repo, path, "Edit", **edit("text that is not in the file")))
    assert asks(pre_edit(cli, repo, path, "MultiEdit", edits=[edit("return row"), edit("nope")]))
    assert asks(pre_edit(cli, repo, path, "Edit", old_string="", new_string="x"))
    # a file that no longer parses: the symbol's range is not known
    (repo / path).write_text(STORE.replace("def load(self, key):", "def load(self, key:"))
    assert asks(pre_edit(cli, repo, path, "Edit", **edit("return self.rows[key]")))
    # a symbol the file no longer defines
    (repo / path).write_text(STORE.replace("class Store:", "class Keep:"))
    assert asks(pre_edit(cli, repo, path, "Edit", **edit("return self.rows[key]")))


def test_a_guard_on_the_whole_file_asks_about_every_edit(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, "-f", "src/store.py", "--anchor", "src/other.py::helper")
    assert asks(pre_edit(cli, repo, "src/store.py", "Edit", **edit("return self.rows[key]")))


def test_allowing_an_edit_elsewhere_does_not_allow_the_guarded_symbol(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, "--anchor", "src/store.py::Store.save")
    path = "src/store.py"
    assert asks(pre_edit(cli, repo, path, "Edit", **edit("self.rows.append(row)")))  # refused
    assert not asks(pre_edit(cli, repo, path, "Edit", **edit("return self.rows[key]")))
    post = {
        "session_id": SESSION,
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / path), **edit("return self.rows[key]")},
    }
    assert cli("hook", "post-edit", stdin=json.dumps(post)).code == 0
    assert asks(pre_edit(cli, repo, path, "Edit", **edit("self.rows.append(row)")))
    # asked, then allowed: the rest of the session is not asked again
    post["tool_input"] = {"file_path": str(repo / path), **edit("self.rows.append(row)")}
    assert cli("hook", "post-edit", stdin=json.dumps(post)).code == 0
    assert not asks(pre_edit(cli, repo, path, "Edit", **edit("self.rows.append(row)")))


def test_a_guarded_symbol_moved_to_another_file_is_guarded_there(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = guard(cli, "--anchor", "src/store.py::Store.save")
    git(repo, "mv", "src/store.py", "src/records.py")
    git(repo, "commit", "-qm", "store.py becomes records.py")
    assert cli("index").code == 0
    inside = pre_edit(cli, repo, "src/records.py", "Edit", **edit("self.rows.append(row)"))
    assert asks(inside)
    assert (
        f"[{memory_id}] covers src/records.py (symbol Store.save, moved here from src/store.py)"
        in (inside["permissionDecisionReason"])
    )
    assert not asks(pre_edit(cli, repo, "src/records.py", "Edit", **edit("return self.rows[key]")))
    assert not asks(pre_edit(cli, repo, "src/other.py", "Edit", **edit("return 1")))
    assert asks(pre_edit(cli, repo, "src/records.py", "Write", content="class Store:\n    pass\n"))
