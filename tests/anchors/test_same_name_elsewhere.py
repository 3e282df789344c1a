"""A function of the same name in another file is not the anchored one moved there unless it
has the recorded code or is new in that file: ``show``, ``repoint``, the pre-edit hook and
``check`` agree. And a move with an edit that ``check`` reports is one ``repoint`` follows,
after which ``confirm`` ends the failure."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, git, make_repo

Run = Callable[..., CliResult]

A_C = "static int util(int x)\n{\n    return x + 1;\n}\n"
B_C = (
    "static int util(int x)\n{\n    return x * 2;\n}\n\n"
    "int api_b(int y)\n{\n    return util(y);\n}\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """lib/a.c and lib/b.c, each with its own static util."""
    return make_repo(tmp_path / "repo", {"lib/a.c": A_C, "lib/b.c": B_C})


def guard_util(cli: Run, repo: Path) -> str:
    """A guarded memory anchored to a.c's util, committed; its id."""
    assert cli("index", cwd=repo).code == 0
    done = cli(
        "remember", "util guarded", "-c", "decision", "--anchor", "lib/a.c::util", "--guard",
        "--json", cwd=repo,
    )  # fmt: skip
    assert done.code == 0, done.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memory")
    return str(done.json()["id"])


def state(cli: Run, repo: Path, memory_id: str) -> dict[str, Any]:
    done = cli("show", memory_id, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    return dict(done.json()["anchor_states"][0])


def pre_edit(cli: Run, repo: Path, path: str) -> str:
    """The real hook's reason for an edit of ``path`` (empty: it said nothing)."""
    payload = {
        "session_id": "7a1c2e3f-4b5d-4e6f-8a7b-9c0d1e2f3a4b",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / path), "old_string": "x * 2", "new_string": "x"},
    }
    done = cli("hook", "pre-edit", stdin=json.dumps(payload), cwd=repo)
    assert done.code == 0, done.stderr
    return done.stdout


def test_a_deleted_file_does_not_move_its_function_to_a_namesake(repo: Path, cli: Run) -> None:
    memory_id = guard_util(cli, repo)
    git(repo, "rm", "-q", "lib/a.c")
    git(repo, "commit", "-qm", "rm")
    assert cli("index", cwd=repo).code == 0
    assert state(cli, repo, memory_id)["state"] == "gone"
    repointed = cli("repoint", memory_id, cwd=repo)
    assert repointed.code == 1
    assert "lib/b.c" not in repointed.stdout + repointed.stderr
    assert "moved here from lib/a.c" not in pre_edit(cli, repo, "lib/b.c")


def test_an_anchor_in_a_file_only_history_has_is_not_relocated(repo: Path, cli: Run) -> None:
    git(repo, "rm", "-q", "lib/a.c")
    git(repo, "commit", "-qm", "rm")
    assert cli("index", cwd=repo).code == 0
    done = cli("remember", "old util", "-c", "decision", "--anchor", "lib/a.c::util", "--json",
               cwd=repo)  # fmt: skip
    assert done.code == 0, done.stderr
    assert state(cli, repo, str(done.json()["id"]))["state"] == "gone"


def test_check_sees_no_move_nor_edit_of_a_namesake(repo: Path, cli: Run) -> None:
    guard_util(cli, repo)
    git(repo, "rm", "-q", "lib/a.c")
    (repo / "lib/b.c").write_text(B_C.replace("return util(y);", "return util(y) + 1;"))
    git(repo, "add", "-A")
    done = cli("check", "--json", cwd=repo)
    said = json.dumps(done.json())
    assert "moves symbol util" not in said
    assert "edits util" not in said
    assert "the change deletes symbol util, anchored at lib/a.c" in said


def test_a_function_moved_into_a_new_file_with_an_edit_is_followed(repo: Path, cli: Run) -> None:
    memory_id = guard_util(cli, repo)
    git(repo, "rm", "-q", "lib/a.c")
    others = "".join(f"int other_{n}(void)\n{{\n    return {n} * {n};\n}}\n\n" for n in range(9))
    (repo / "lib/c.c").write_text(others + A_C.replace("x + 1", "1 + x"))  # no rename: new
    git(repo, "add", "-A")
    assert "moves symbol util from lib/a.c to lib/c.c" in cli("check", cwd=repo).stdout
    git(repo, "commit", "-qm", "move")
    assert cli("index", cwd=repo).code == 0
    found = state(cli, repo, memory_id)
    assert (found["state"], found["path"], found["changed"]) == ("relocated", "lib/c.c", True)


STORE = "def helper(a, b):\n    return a + b\n\n\ndef keep():\n    return 1\n"


def test_a_move_with_an_edit_that_check_reports_is_repointed_then_confirmed(
    tmp_path: Path, cli: Run
) -> None:
    repo = make_repo(tmp_path / "py", {"src/store.py": STORE})
    assert cli("index", cwd=repo).code == 0
    done = cli("remember", "helper adds", "-c", "decision", "--anchor",
               "src/store.py::helper", "--guard", "--json", cwd=repo)  # fmt: skip
    assert done.code == 0, done.stderr
    memory_id = str(done.json()["id"])
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memory")
    (repo / "src/store.py").write_text("def keep():\n    return 1\n")
    (repo / "src/util.py").write_text("def helper(a, b):\n    return b + a\n")
    git(repo, "add", "-A")
    checked = cli("check", cwd=repo)
    assert checked.code == 1
    assert "moves symbol helper from src/store.py to src/util.py" in checked.stdout
    assert f"tether repoint {memory_id} --apply" in checked.stdout
    found = state(cli, repo, memory_id)
    assert (found["state"], found["path"]) == ("relocated", "src/util.py")
    repointed = cli("repoint", memory_id, "--apply", cwd=repo)
    assert repointed.code == 0, repointed.stderr
    assert cli("check", cwd=repo).code == 1  # the code under the guard changed: confirm it
    confirmed = cli("confirm", memory_id, cwd=repo)
    assert confirmed.code == 0, confirmed.stderr
    after = cli("check", cwd=repo)
    assert after.code == 0, after.stdout


def test_a_store_in_a_subfolder_reads_the_same_history(tmp_path: Path, cli: Run) -> None:
    """A store kept in a folder of a larger repository names files from that folder; the
    history of a file is read from there too, not from the repository's top."""
    top = make_repo(tmp_path / "mono", {"app dir/lib/a.c": A_C, "app dir/lib/b.c": B_C})
    here = top / "app dir"
    (here / ".tether").mkdir()  # a store of its own (a monorepo's project), not the top's
    assert cli("init", cwd=here).code == 0
    memory_id = guard_util(cli, here)
    git(here, "rm", "-q", "lib/a.c")
    git(here, "commit", "-qm", "rm")
    assert cli("index", cwd=here).code == 0
    assert state(cli, here, memory_id)["state"] == "gone"
    assert "moved here from lib/a.c" not in pre_edit(cli, here, "lib/b.c")
