"""A definition moves only between files of one language family (C with its headers, C++ and
Objective-C; JavaScript with TypeScript): a same-named function in a file of another language
is another function. ``show``, ``recall``, ``check``, ``repoint`` and the pre-edit hook agree."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

Run = Callable[..., CliResult]

UTIL_C = "static int helper(int x) { return x + 1; }\nint api(void) { return helper(1); }\n"
INLINED_C = "int api(void) { return 2; }\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"util.c": UTIL_C})


def guard_helper(cli: Run, repo: Path) -> str:
    """A guarded memory anchored to util.c's helper, committed; its id."""
    assert cli("index").code == 0
    done = cli(
        "remember", "helper must stay reentrant", "-c", "gotcha", "--anchor", "util.c::helper",
        "--guard", "--json",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memory")
    return str(done.json()["id"])


def move_helper(repo: Path, to: str, text: str) -> None:
    """Take helper out of util.c and write ``text`` to ``to``, committed and indexed."""
    (repo / "util.c").write_text(INLINED_C)
    (repo / to).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", f"inline helper; add {to}")


def pre_edit(cli: Run, repo: Path, path: str) -> str:
    """The real hook's reason for an edit of ``path`` (empty: it said nothing)."""
    payload = {
        "session_id": "7a1c2e3f-4b5d-4e6f-8a7b-9c0d1e2f3a4b",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / path), "old_string": "hi", "new_string": "ho"},
    }
    done = cli("hook", "pre-edit", stdin=json.dumps(payload))
    assert done.code == 0, done.stderr
    return done.stdout


def test_a_c_function_does_not_move_into_a_python_file(repo: Path, cli: Run) -> None:
    memory = guard_helper(cli, repo)
    move_helper(repo, "tools.py", 'def helper():\n    print("hi")\n')
    assert cli("index").code == 0
    assert cli("show", memory).stdout.splitlines()[-1] == "symbol util.c::helper: gone"
    assert memory not in cli("recall", "-f", "tools.py").stdout
    checked = cli("check", "--base", "HEAD~1")
    assert "the change deletes symbol helper" in checked.stdout, checked.stdout
    assert "tools.py" not in checked.stdout
    repointed = cli("repoint", memory)
    assert repointed.code == 1
    assert "tools.py" not in repointed.stdout + repointed.stderr
    assert "util.c" not in pre_edit(cli, repo, "tools.py")


def test_a_c_function_moves_into_a_header(repo: Path, cli: Run) -> None:
    memory = guard_helper(cli, repo)
    move_helper(repo, "util.h", "static inline int helper(int x) { return x + 2; }\n")
    assert cli("index").code == 0
    last = cli("show", memory).stdout.splitlines()[-1]
    assert last.startswith("symbol util.c::helper: relocated to util.h:1"), last
    checked = cli("check", "--base", "HEAD~1")
    assert "the change moves symbol helper from util.c to util.h" in checked.stdout


@pytest.mark.parametrize(
    ("path", "other", "moves"),
    [
        ("a.c", "b.h", True),
        ("a.c", "b.cpp", True),
        ("a.hpp", "b.h", True),
        ("a.m", "b.c", True),
        ("a.js", "b.ts", True),
        ("a.jsx", "b.tsx", True),
        ("a.py", "b.pyi", True),
        ("a.kt", "b.kts", True),
        ("a.c", "b.py", False),
        ("a.java", "b.kt", False),
        ("a.go", "b.rs", False),
        ("a.ts", "b.py", False),
        ("a.c", "b.txt", False),
    ],
)
def test_language_families(path: str, other: str, moves: bool) -> None:
    from recall.genome.symbols.grammars import one_family

    assert one_family(path, other) is moves
    assert one_family(other, path) is moves
