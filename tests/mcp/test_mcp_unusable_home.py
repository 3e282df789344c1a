"""The MCP server with a ``TETHER_HOME`` that cannot be the user-wide store's folder (a folder
inside the repository, a file, a relative path), by the rule the CLI and the language server
follow: in a repository it serves the project's memories, saying why the user-wide ones are
left out in each read's ``notes`` and once in its log on stderr (never on stdout, which carries
the protocol); a write to the user-wide store is a tool error naming the variable, nothing
written; a write to the project's store goes on. With no repository there is nothing to serve:
the server does not start (exit 2), as ``tether mcp`` and ``python -m mcp_server``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import run_tether

from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, WAIT_S, line, server_env, tool_call

KINDS = ("inside", "file", "relative")
SUMMARY = "flush the pool before exit"


def _value(kind: str, repo: Path, tmp_path: Path) -> str:
    """A ``TETHER_HOME`` of ``kind`` for ``repo``."""
    if kind == "inside":
        return str(repo / "notes" / "tether")
    if kind == "file":
        taken = tmp_path / "home-file"
        taken.write_text("mine\n", encoding="utf-8")
        return str(taken)
    return "relhome"


def _serve(
    command: list[str], cwd: Path, value: str, tmp_path: Path, sent: bytes
) -> subprocess.CompletedProcess[bytes]:
    env = server_env({"TETHER_HOME": value, "XDG_DATA_HOME": str(tmp_path / "user-data")})
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=cwd, env=env, input=sent, capture_output=True,
        timeout=WAIT_S,
    )  # fmt: skip


def _result(answer: dict[str, Any]) -> tuple[bool, str]:
    """(is an error, text) of a ``tools/call`` answer."""
    result = answer["result"]
    return bool(result.get("isError")), result["content"][0]["text"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_projects_memories_are_served_and_a_user_wide_write_refused(
    repo: Path, tmp_path: Path, kind: str
) -> None:
    written = run_tether("--json", "remember", SUMMARY, "-c", "gotcha", "-f", "src/app.py",
                         cwd=repo)  # fmt: skip
    assert written.code == 0, written
    memory = written.json()["id"]
    value = _value(kind, repo, tmp_path)
    pref = {"summary": "tabs, not spaces", "category": "pref", "files": []}
    project = {"summary": "the pool has ten connections", "category": "context",
               "files": ["src/app.py"]}  # fmt: skip
    calls = [
        tool_call(2, "memory_recall", {"prompt": "flush the pool", "files": ["src/app.py"]}),
        tool_call(3, "memory_list", {}),
        tool_call(4, "memory_get", {"id": memory}),
        tool_call(5, "memory_write", {**pref, "scope": "global"}),
        tool_call(6, "memory_write", project),
    ]
    sent = line(INITIALIZE) + line(INITIALIZED) + b"".join(map(line, calls))
    done = _serve(["recall", "mcp"], repo, value, tmp_path, sent)
    assert done.returncode == 0, done.stderr
    answers = {a.get("id"): a for a in map(json.loads, done.stdout.decode().splitlines())}
    named = f"TETHER_HOME={value!r}"
    for number in (2, 3):
        failed, text = _result(answers[number])
        assert not failed, text
        data = json.loads(text)
        found = data.get("results") or data.get("memories")
        assert [entry["summary"] for entry in found] == [SUMMARY]
        assert any(named in note and "only this repository's" in note for note in data["notes"])
    failed, text = _result(answers[4])
    assert not failed and json.loads(text)["summary"] == SUMMARY, text
    failed, text = _result(answers[5])
    assert failed and named in text and "nothing was written" in text, text
    failed, text = _result(answers[6])
    assert not failed, text
    log = [row for row in done.stderr.decode().splitlines() if named in row]
    assert len(log) == 1 and "only this repository's memories are read" in log[0], log
    assert len(list((repo / ".tether" / "memories").glob("*.md"))) == 2  # the project's write
    assert not (repo / "notes").exists() and not (repo / "relhome").exists()
    assert not (tmp_path / "user-data").exists()
    if kind == "file":
        assert Path(value).read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("command", [["recall", "mcp"], ["mcp_server"]])
@pytest.mark.parametrize("kind", ["file", "relative"])  # outside it, a folder "inside" is one
def test_outside_any_repository_the_server_does_not_start(
    repo: Path, tmp_path: Path, kind: str, command: list[str]
) -> None:
    value = _value(kind, repo, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = _serve(command, elsewhere, value, tmp_path, line(INITIALIZE))
    assert done.returncode == 2, done
    assert done.stdout == b""
    said = done.stderr.decode()
    assert f"TETHER_HOME={value!r}" in said and "not inside a git repository" in said, said
    assert list(elsewhere.iterdir()) == []
