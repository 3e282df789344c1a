"""A command started in a folder deleted since the shell entered it: an agent's hook answers
from the folder its input names (a guard still asks), the servers serve the folder their
client or agent names, and any other command says in one line that the folder is gone and
what to do, exit 2 as for a ``-C`` folder that does not exist; never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CliResult, remember_guarded

from recall import hooks
from recall.errors import EXIT_BAD_INPUT
from tests.lsp.raw import raw_server
from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, WAIT_S, line, tool_call

GUARDED = "login retries stay at three"
GONE = (
    "tether: error: the current folder no longer exists (deleted); cd to an existing folder, "
    "or name one with `tether -C DIR`\n"
)


def in_deleted_folder(folder: Path, *command: str) -> list[str]:
    """``command`` run by a shell that removes ``folder``, its working directory, first."""
    folder.mkdir()
    return ["sh", "-c", 'rmdir "$0" && exec "$@"', str(folder), *command]


def run_gone(
    tmp_path: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> CliResult:
    """``python -m recall ARGS`` started in a folder that no longer exists."""
    folder = tmp_path / "gone"
    done = subprocess.run(
        in_deleted_folder(folder, sys.executable, "-m", "recall", *args),
        cwd=folder,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "TETHER_WARM": "0", **(env or {})},
        timeout=WAIT_S,
        check=False,
    )
    return CliResult(done.returncode, done.stdout, done.stderr)


def _hook_input(repo: Path, session: str) -> str:
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(repo),
            "prompt": "why do login retries fail",
            "tool_name": "Edit",
            "tool_input": {"file_path": str(repo / "src/app.py")},
        }
    )


def test_a_guard_still_asks_from_a_deleted_folder(repo: Path, tmp_path: Path) -> None:
    remember_guarded(repo, GUARDED, "-f", "src/app.py")
    done = run_gone(tmp_path, "hook", "pre-edit", stdin=_hook_input(repo, "s1"))
    assert done.code == 0, done.stderr
    decision = json.loads(done.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "ask"
    assert GUARDED in decision["permissionDecisionReason"]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("event", hooks.EVENTS)
def test_every_hook_answers_from_the_folder_its_input_names(
    repo: Path, tmp_path: Path, event: str
) -> None:
    remember_guarded(repo, GUARDED, "-f", "src/app.py")
    done = run_gone(tmp_path, "hook", event, stdin=_hook_input(repo, f"s-{event}"))
    assert done.code == 0, done.stderr
    assert "Traceback" not in done.stderr
    if event == "prompt":
        assert GUARDED in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    "args",
    [
        ("list",),
        ("recall", "login"),
        ("recall", "-f", "src/app.py"),
        ("init",),
        ("index",),
        ("doctor",),
        ("check",),
        ("inject", "login"),
        ("remember", "x", "-c", "gotcha", "--global"),
        ("mcp",),
    ],
)
def test_a_command_says_the_folder_is_gone_in_one_line(
    repo: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    done = run_gone(tmp_path, *args)
    assert (done.code, done.stdout, done.stderr) == (EXIT_BAD_INPUT, "", GONE)


def test_the_json_error_says_it_too(repo: Path, tmp_path: Path) -> None:
    done = run_gone(tmp_path, "--json", "list")
    assert done.code == EXIT_BAD_INPUT
    error = json.loads(done.stderr)
    assert error == {"error": GONE.removeprefix("tether: error: ").strip(), "exit_code": 2}


def test_a_folder_named_with_C_is_served(repo: Path, tmp_path: Path) -> None:
    remember_guarded(repo, GUARDED, "-f", "src/app.py")
    done = run_gone(tmp_path, "-C", str(repo), "list")
    assert done.code == 0, done.stderr
    assert GUARDED in done.stdout


def test_the_mcp_server_serves_the_project_the_agent_names(repo: Path, tmp_path: Path) -> None:
    remember_guarded(repo, GUARDED, "-f", "src/app.py")
    sent = line(INITIALIZE) + line(INITIALIZED) + line(tool_call(2, "memory_list", {}))
    done = run_gone(tmp_path, "mcp", stdin=sent.decode(), env={"CLAUDE_PROJECT_DIR": str(repo)})
    assert done.code == 0, done.stderr
    answers = {a.get("id"): a for a in map(json.loads, done.stdout.splitlines())}
    listed = json.loads(answers[2]["result"]["content"][0]["text"])
    assert [m["summary"] for m in listed["memories"]] == [GUARDED]


def test_the_mcp_module_without_a_project_says_the_folder_is_gone(tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    environment = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    done = subprocess.run(
        in_deleted_folder(folder, sys.executable, "-m", "mcp_server"),
        cwd=folder,
        capture_output=True,
        text=True,
        env=environment,
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr == (
        "python -m mcp_server: error: the current folder no longer exists (deleted); cd to an "
        "existing folder, or set CLAUDE_PROJECT_DIR to the project's folder\n"
    )


def test_the_language_server_serves_the_root_its_client_names(repo: Path, tmp_path: Path) -> None:
    remember_guarded(repo, GUARDED, "-f", "src/app.py")
    folder = tmp_path / "gone"
    command = in_deleted_folder(folder, sys.executable, "-m", "recall", "lsp")
    with raw_server(folder, command=command) as client:
        client.initialize(repo)
        uri = (repo / "src/app.py").as_uri()
        text = (repo / "src/app.py").read_text(encoding="utf-8")
        document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        client.notify("textDocument/didOpen", {"textDocument": document})
        position = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
        hover = client.response(client.request("textDocument/hover", position))
    assert GUARDED in hover["result"]["contents"]["value"]
