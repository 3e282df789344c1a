"""A memory written before ``git mv`` keeps its file through the rename, as recall finds it:
the pre-edit hook's guard and gotcha warning, ``tether check`` and ``tether list --file`` follow
the renames git's history shows, and a check failure on a renamed file says to repoint the
memory. The real CLI and hook command, real repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, git, make_repo

SESSION = "5d2e8f1a-3b4c-4d5e-8f6a-7b8c9d0e1f2a"
SOURCE = "RETRIES = 3\n\n\ndef fetch(url):\n    return url\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"retry.py": SOURCE, "README.md": "# demo\n"})


Run = Callable[..., CliResult]


def remember(cli: Run, summary: str, category: str, *extra: str) -> str:
    done = cli("remember", summary, "-c", category, "-f", "retry.py", "--json", *extra)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def rename(repo: Path, cli: Run) -> None:
    """``git mv retry.py net_retry.py``, committed and indexed."""
    git(repo, "mv", "retry.py", "net_retry.py")
    commit_all(repo, "retry.py becomes net_retry.py")
    assert cli("index").code == 0


def asks_through_the_rename(answer: dict[str, Any] | None, guard: str, gotcha: str) -> None:
    """The hook's answer to an edit of net_retry.py, once retry.py: it asks about the guard on
    the old name, and warns of the gotcha there."""
    assert answer is not None
    assert answer["permissionDecision"] == "ask"
    assert (
        f"[{guard}] covers net_retry.py (renamed from retry.py);"
        in (answer["permissionDecisionReason"])
    )
    assert f"[{gotcha}]" in answer["additionalContext"]


def pre_edit(cli: Run, repo: Path, path: str) -> dict[str, Any] | None:
    """The real hook command's answer to an Edit of ``path`` (None: it said nothing)."""
    payload = {
        "session_id": SESSION,
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(repo / path),
            "old_string": "RETRIES = 3",
            "new_string": "RETRIES = 5",
        },
        "tool_use_id": "toolu_1",
    }
    done = cli("hook", "pre-edit", stdin=json.dumps(payload))
    assert done.code == 0, done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"] if done.stdout.strip() else None


def test_the_edit_hook_guards_and_warns_through_a_rename(repo: Path, cli: Run) -> None:
    guard = remember(cli, "retries stay at three", "decision", "--guard")
    gotcha = remember(cli, "fetch must not be called in a loop", "gotcha")
    commit_all(repo, "memories")
    rename(repo, cli)
    answer = pre_edit(cli, repo, "net_retry.py")
    asks_through_the_rename(answer, guard, gotcha)


def test_list_file_lists_the_memories_naming_its_earlier_name(repo: Path, cli: Run) -> None:
    memory_id = remember(cli, "fetch must not be called in a loop", "gotcha")
    commit_all(repo, "memory")
    rename(repo, cli)
    listed = cli("list", "--file", "net_retry.py", "--json")
    assert listed.code == 0, listed.stderr
    assert [m["id"] for m in listed.json()] == [memory_id]
    assert cli("list", "--file", "README.md").code == 1  # another file lists none of them


def test_check_fails_a_guard_named_by_the_old_name_and_says_to_repoint(
    repo: Path, cli: Run
) -> None:
    guard = remember(cli, "retries stay at three", "decision", "--guard")
    gotcha = remember(cli, "fetch must not be called in a loop", "gotcha")
    commit_all(repo, "memories")
    rename(repo, cli)
    (repo / "net_retry.py").write_text(SOURCE.replace("= 3", "= 5"))
    done = cli("check", "--json")
    assert done.code == 1, done.stdout
    found = done.json()
    assert {f["id"] for f in found["review"]} == {gotcha}  # the guard: once, as the failure
    [failure] = found["failures"]
    assert (failure["id"], failure["path"]) == (guard, "net_retry.py")
    assert "the memory names it retry.py, its name before a rename" in failure["reason"]
    assert f"`tether repoint {guard} --apply`" in failure["reason"]
    assert f"`tether confirm {guard}`" in failure["reason"]  # the code changed too
    # repointing names the file anew, and the edit under the guard still asks for a confirm
    assert cli("repoint", guard, "--apply").code == 0
    [failure] = cli("check", "--json").json()["failures"]
    assert "repoint" not in failure["reason"]
    assert f"`tether confirm {guard}`" in failure["reason"]
    assert cli("confirm", guard).code == 0
    assert cli("check").code == 0


def test_a_pure_rename_under_a_guard_passes_once_repointed(repo: Path, cli: Run) -> None:
    guard = remember(cli, "retries stay at three", "decision", "--guard")
    commit_all(repo, "memory")
    git(repo, "switch", "-q", "-c", "rename")
    rename(repo, cli)
    done = cli("check", "--base", "main", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert failure["reason"].startswith("the change moves retry.py to net_retry.py")
    assert f"`tether repoint {guard} --apply`" in failure["reason"]
    assert "confirm" not in failure["reason"]  # the code is the same: the name is all to fix
    assert cli("repoint", guard, "--apply").code == 0
    done = cli("check", "--base", "main", "--json")
    assert done.code == 0, done.stdout
    assert [f["id"] for f in done.json()["review"]] == [guard]


def test_a_renamed_and_edited_guard_fails_even_when_repointed_in_the_change(
    repo: Path, cli: Run
) -> None:
    guard = remember(cli, "retries stay at three", "decision", "--guard")
    commit_all(repo, "memory")
    git(repo, "mv", "retry.py", "net_retry.py")
    (repo / "net_retry.py").write_text(SOURCE.replace("= 3", "= 5"))
    commit_all(repo, "renamed and edited")
    assert cli("index").code == 0
    assert cli("repoint", guard, "--apply").code == 0
    done = cli("check", "--base", "HEAD~1", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert failure["reason"].startswith("the change moves retry.py to net_retry.py")
    assert f"`tether confirm {guard}`" in failure["reason"]
    assert cli("confirm", guard).code == 0
    assert cli("check", "--base", "HEAD~1").code == 0
