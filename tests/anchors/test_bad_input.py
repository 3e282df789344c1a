"""Anchors into files the parser cannot read, end to end through the real commands: a grammar
that does not load, a file that does not parse, a binary file and a 50 MB one. Each gives the
regular-expression finder or a message naming the file and why, never a crash, and every
anchor written is kept."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

ROUTE = "int route_add(int arg)\n{\n    return arg;\n}\n"
HUGE_BYTES = 50 * 1024 * 1024


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    padding = b"/* generated */\n" * (HUGE_BYTES // 16)
    root = make_repo(
        tmp_path / "repo",
        {
            "src/route.c": ROUTE,
            "src/broken.c": "}}}} int ((( {{{\n" + ROUTE.replace("route_add", "route_del"),
        },
    )
    (root / "src/blob.c").write_bytes(b"int route_blob(int arg)\n{\0\n}\n")
    (root / "src/huge.c").write_bytes(ROUTE.replace("route_add", "route_big").encode() + padding)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a binary and a huge file")
    return root


ANCHORS = (
    "src/broken.c::route_del",
    "src/blob.c::route_blob",
    "src/huge.c::route_big",
    "src/route.c::route_add",
)


def remember_all(cli: Callable[..., CliResult], env: dict[str, str] | None = None) -> str:
    args = ["remember", "routes are added under the lock", "-c", "decision", "--guard", "--json"]
    for anchor in ANCHORS:
        args += ["--anchor", anchor]
    done = cli(*args, env=env)
    assert done.code == 0, done.stderr
    assert "src/blob.c is not read for symbols: it is binary" in done.stderr
    assert "src/huge.c is not read for symbols: it is 52,428,8" in done.stderr
    return str(done.json()["id"])


def anchor_states(cli: Callable[..., CliResult], memory_id: str) -> dict[str, str]:
    shown = cli("show", memory_id, "--json")
    assert shown.code == 0, shown.stderr
    return {s["symbol"]: s["state"] for s in shown.json()["anchor_states"]}


def test_unreadable_files_keep_their_anchors_and_say_why(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = remember_all(cli)
    index = cli("index", "--json")
    assert index.code == 0, index.stderr
    assert "src/broken.c did not parse as c: its symbols come from the regex finder" in index.stderr
    assert anchor_states(cli, memory_id) == {
        "src/broken.c::route_del": "current",  # the regex finder read it
        "src/blob.c::route_blob": "unknown",
        "src/huge.c::route_big": "unknown",
        "src/route.c::route_add": "current",
    }
    # an edit of the huge file cannot be located in it: the guard asks
    payload = {
        "session_id": "3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(repo / "src/huge.c"),
            "old_string": "    return arg;",
            "new_string": "    return -arg;",
        },
    }
    hooked = cli("hook", "pre-edit", stdin=json.dumps(payload))
    assert hooked.code == 0 and hooked.stderr == ""
    assert json.loads(hooked.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    checked = cli("check", "--json")
    assert checked.code == 0, checked.stdout + checked.stderr


def test_a_grammar_that_does_not_load_falls_back_to_the_regex_finder(
    repo: Path, tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    # a C grammar wheel whose compiled part does not load, shadowing the installed one
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "tree_sitter_c.py").write_text(
        "def language():\n    raise OSError('undefined symbol: tree_sitter_c')\n"
    )
    env = {"PYTHONPATH": str(shadow)}
    memory_id = remember_all(cli, env)
    index = cli("index", "--full", "--json", env=env)
    assert index.code == 0, index.stderr
    assert "the c grammar did not load (undefined symbol: tree_sitter_c)" in index.stderr
    assert index.json()["symbol_parsers"].get("regex", 0) >= 2
    states = anchor_states(cli, memory_id)
    assert sorted(states) == sorted(ANCHORS)  # every anchor kept
    assert states["src/route.c::route_add"] == "current"
