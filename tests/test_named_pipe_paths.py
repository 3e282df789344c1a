"""A file a memory names that is now a named pipe (an unpacked archive, a script's ``mkfifo``):
recall, ``inject`` and the MCP ``memory_recall`` recall the memories naming it, as for a
deleted file, and say on stderr that it is no regular file; ``show`` and ``doctor`` say what
it is; no command opens it (a read would wait for a writer that never comes)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import git, remember_guarded, run_tether

from recall.file_kinds import special_kind
from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, line, server_answers, tool_call

SUMMARY = "the runner must stay executable"
NOTE = "tether: run.sh is a named pipe, not a regular file; recalling the memories that name it"


@pytest.fixture
def piped(repo: Path) -> tuple[Path, str]:
    """``repo`` with a committed memory on ``run.sh``, which is then made a named pipe; the
    memory's id."""
    (repo / "run.sh").write_text("echo run\n", encoding="utf-8")
    git(repo, "add", "run.sh")
    git(repo, "commit", "-qm", "runner")
    done = run_tether("--json", "remember", SUMMARY, "-c", "gotcha", "-f", "run.sh", cwd=repo)
    assert done.code == 0, done.stderr
    (repo / "run.sh").unlink()
    os.mkfifo(repo / "run.sh")
    return repo, done.json()["id"]


def test_recall_finds_the_memories_of_a_named_pipe_and_says_what_it_is(
    piped: tuple[Path, str],
) -> None:
    repo, memory_id = piped
    done = run_tether("--json", "recall", "-f", "run.sh", cwd=repo)
    assert done.code == 0, done.stderr
    assert [hit["id"] for hit in done.json()["results"]] == [memory_id]
    assert f"{NOTE} all the same\n" in done.stderr


def test_inject_shows_them_with_the_note(piped: tuple[Path, str]) -> None:
    repo, _ = piped
    done = run_tether("inject", "-f", "run.sh", "how do I run it", cwd=repo)
    assert done.code == 0, done.stderr
    assert SUMMARY in done.stdout
    assert f"{NOTE} all the same\n" in done.stderr


def test_a_named_pipe_no_memory_names_is_said(piped: tuple[Path, str]) -> None:
    repo, _ = piped
    os.mkfifo(repo / "other.sh")
    done = run_tether("recall", "-f", "other.sh", cwd=repo)
    assert done.code == 1
    said = "tether: path 'other.sh' is a named pipe, not a regular file; recall takes the files"
    assert said in done.stderr


def test_the_mcp_recall_finds_them_with_the_note(piped: tuple[Path, str]) -> None:
    repo, memory_id = piped
    call = tool_call(2, "memory_recall", {"files": ["run.sh"]})
    answers = server_answers(repo, line(INITIALIZE) + line(INITIALIZED) + line(call))
    found = json.loads(next(a for a in answers if a.get("id") == 2)["result"]["content"][0]["text"])
    assert [hit["id"] for hit in found["results"]] == [memory_id]
    assert found["notes"] == [NOTE.removeprefix("tether: ") + " all the same"]


def test_show_and_doctor_say_it_is_a_named_pipe(piped: tuple[Path, str]) -> None:
    repo, memory_id = piped
    shown = run_tether("show", memory_id, cwd=repo)
    assert shown.code == 0, shown.stderr
    assert "file run.sh: a named pipe, not a regular file\n" in shown.stdout
    doctor = run_tether("doctor", cwd=repo)
    assert (
        f"{memory_id}: no file it names is in the working tree: files[0] 'run.sh' is a named "
        "pipe, not a regular file\n"
    ) in doctor.stdout


def test_a_line_range_on_a_named_pipe_is_written_without_reading_it(
    piped: tuple[Path, str],
) -> None:
    repo, _ = piped
    done = run_tether(
        "remember",
        "lines 1-2 start it",
        "-c",
        "gotcha",
        "-f",
        "run.sh",
        "--anchor",
        "L1-L2",
        cwd=repo,
    )
    assert done.code == 0, done.stderr


def test_a_guard_on_a_named_pipe_still_asks(repo: Path) -> None:
    (repo / "run.sh").write_text("echo run\n", encoding="utf-8")
    git(repo, "add", "run.sh")
    git(repo, "commit", "-qm", "runner")
    remember_guarded(repo, SUMMARY, "-f", "run.sh")
    (repo / "run.sh").unlink()
    os.mkfifo(repo / "run.sh")
    edit = {"file_path": str(repo / "run.sh"), "old_string": "run", "new_string": "go"}
    payload = {"session_id": "s1", "cwd": str(repo), "tool_name": "Edit", "tool_input": edit}
    done = run_tether("hook", "pre-edit", cwd=repo, stdin=json.dumps(payload))
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_each_kind_is_told(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert special_kind(tmp_path / "pipe") == "a named pipe"
    assert special_kind(Path("/dev/null")) == "a device"
    assert [special_kind(tmp_path / name) for name in ("file", ".", "none")] == [None] * 3
