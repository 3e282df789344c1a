"""Arguments, settings and environment values the CLI cannot use are refused by name, never
silently dropped; a closed stdin or stdout ends a command without a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, run_tether

Cli = Callable[..., CliResult]


def _remember(cli: Cli, summary: str = "flush before exit") -> str:
    done = cli("remember", summary, "-c", "gotcha", "-f", "src/app.py", "--json")
    assert done.code == 0, done
    return done.json()["id"]


# -- recall --batch ------------------------------------------------------------------------------


def test_batch_refuses_a_prompt_and_files_beside_it(cli: Cli, tmp_path: Path) -> None:
    _remember(cli)
    batch = tmp_path / "queries.jsonl"
    batch.write_text('{"prompt": "flush"}\n', "utf-8")
    result = cli("recall", "--batch", str(batch), "-f", "src/app.py", "some prompt")
    assert result.code == 2, result
    assert result.stdout == ""
    assert "the prompt, --file cannot go with --batch" in result.stderr
    assert '"files"' in result.stderr


def test_batch_refuses_open_and_session(cli: Cli, tmp_path: Path) -> None:
    batch = tmp_path / "queries.jsonl"
    batch.write_text('{"prompt": "flush"}\n', "utf-8")
    result = cli("recall", "--batch", str(batch), "--open", "src/app.py", "--session", "s1")
    assert result.code == 2, result
    assert "--open, --session cannot go with --batch" in result.stderr
    assert "without --batch" in result.stderr


def test_batch_applies_explain_to_every_line(cli: Cli, tmp_path: Path) -> None:
    _remember(cli)
    batch = tmp_path / "queries.jsonl"
    batch.write_text('{"prompt": "flush"}\n{"files": ["src/app.py"]}\n', "utf-8")
    result = cli("recall", "--batch", str(batch), "--explain")
    assert result.code == 0, result
    answers = result.json_lines()
    assert len(answers) == 2
    assert all(answer["timings_ms"] for answer in answers)


# -- TETHER_* environment variables --------------------------------------------------------------


@pytest.mark.parametrize("value", ["1M", "abc", "-5", "10"])
def test_an_unreadable_memory_size_limit_is_refused(repo: Path, value: str) -> None:
    result = run_tether(
        "remember", "flush before exit", "-c", "gotcha", "-f", "src/app.py", cwd=repo,
        env={"TETHER_MAX_MEMORY_BYTES": value},
    )  # fmt: skip
    assert result.code == 2, result
    assert f"TETHER_MAX_MEMORY_BYTES={value!r} cannot be read" in result.stderr
    assert "whole number of at least 1,024" in result.stderr
    assert not (repo / ".tether" / "memories").is_dir() or not any(
        (repo / ".tether" / "memories").glob("*.md")
    )


@pytest.mark.parametrize(
    ("name", "value"), [("TETHER_WARM", "maybe"), ("TETHER_WARM_IDLE", "soon")]
)
def test_an_unreadable_warm_engine_setting_is_refused(repo: Path, name: str, value: str) -> None:
    result = run_tether("list", cwd=repo, env={name: value})
    assert result.code == 2, result
    assert f"{name}={value!r} cannot be read" in result.stderr


def test_a_relative_tether_home_is_refused_and_nothing_lands_in_the_repository(
    repo: Path,
) -> None:
    result = run_tether(
        "remember", "tabs, not spaces", "-c", "pref", "--global", cwd=repo,
        env={"TETHER_HOME": "relhome"},
    )  # fmt: skip
    assert result.code == 2, result
    assert "TETHER_HOME='relhome' is a relative path" in result.stderr
    assert "give an absolute path" in result.stderr
    assert not (repo / "relhome").exists()


def test_a_tether_home_that_is_a_file_is_said_so(repo: Path, tmp_path: Path) -> None:
    taken = tmp_path / "afile"
    taken.write_text("mine\n")
    result = run_tether(
        "remember", "tabs, not spaces", "-c", "pref", "--global", cwd=repo,
        env={"TETHER_HOME": str(taken)},
    )  # fmt: skip
    assert result.code == 2, result
    assert "is a file, not a folder: point it at a folder" in result.stderr
    assert taken.read_text() == "mine\n"


def test_a_hook_says_an_unreadable_variable_and_does_not_block(repo: Path) -> None:
    record = json.dumps({"session_id": "s-1", "cwd": str(repo), "prompt": "flush"})
    result = run_tether(
        "hook", "prompt", cwd=repo, stdin=record, env={"TETHER_INJECT_OTHERS": "disabled"}
    )
    assert result.code == 0, result
    assert result.stdout == ""
    assert "TETHER_INJECT_OTHERS='disabled' cannot be read" in result.stderr
    assert "this hook reads it as off" in result.stderr


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TETHER_WARM_IDLE", "5m"),
        ("TETHER_INJECT_OTHERS", "maybe"),
        ("TETHER_MAX_MEMORY_BYTES", "1M"),
        ("TETHER_NOW", "yesterday"),
        ("TETHER_WARM", "perhaps"),
    ],
)
def test_an_unreadable_variable_never_lets_an_edit_past_a_guard(
    repo: Path, name: str, value: str
) -> None:
    done = run_tether(
        "remember", "retries stay at three", "-c", "decision", "-f", "src/app.py", "--guard",
        cwd=repo,
    )  # fmt: skip
    assert done.code == 0, done
    edit = {"file_path": str(repo / "src/app.py"), "old_string": "a", "new_string": "b"}
    record = json.dumps(
        {"session_id": "s-1", "cwd": str(repo), "hook_event_name": "PreToolUse",
         "tool_name": "Edit", "tool_input": edit}
    )  # fmt: skip
    result = run_tether("hook", "pre-edit", cwd=repo, stdin=record, env={name: value})
    assert result.code == 0, result
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert f"{name}={value!r} cannot be read" in result.stderr or (
        f"{name} {value!r} is not an ISO-8601 date" in result.stderr
    )
    assert "this hook reads it as" in result.stderr


# -- settings ------------------------------------------------------------------------------------


def test_a_setting_too_large_for_the_index_is_said_not_a_traceback(cli: Cli, repo: Path) -> None:
    _remember(cli)
    config = repo / ".tether" / "config.toml"
    config.write_text("archive_min_surfacings = 9223372036854775808\n", encoding="utf-8")
    result = cli("session", "start")
    assert result.code == 0, result
    assert "Traceback" not in result.stderr
    assert "config.toml:1: ignoring archive_min_surfacings = 9223372036854775808" in result.stderr
    assert "at most 9,223,372,036,854,775,807" in result.stderr


# -- a closed standard input or output -----------------------------------------------------------

LATER = {"TETHER_NOW": "2027-09-01T00:00:00+00:00"}  # long after the memories were written


def _closed(redirect: str, *args: str, cwd: Path, env: dict[str, str] | None = None) -> CliResult:
    """Run ``tether ARGS`` in ``cwd`` with its stdin (``<&-``) or stdout (``>&-``) closed."""
    done = subprocess.run(
        ["sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, "-m", "recall", *args],
        cwd=cwd,
        stdout=subprocess.PIPE if redirect == "<&-" else None,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )
    return CliResult(done.returncode, done.stdout or "", done.stderr)


def test_purge_with_stdin_closed_asks_for_yes(cli: Cli, repo: Path) -> None:
    assert cli("delete", _remember(cli)).code == 0
    for args in (("purge",), ("purge", "--auto-distilled")):
        result = _closed("<&-", *args, cwd=repo)
        assert "Traceback" not in result.stderr, result
        assert result.code in (1, 2), result
    result = _closed("<&-", "purge", cwd=repo)
    assert result.code == 2 and "pass --yes to confirm" in result.stderr, result


def test_cleanup_with_stdin_closed_says_so(cli: Cli, repo: Path) -> None:
    _remember(cli)
    result = _closed("<&-", "cleanup", cwd=repo, env=LATER)
    assert result.code == 2, result
    assert "stdin is not a terminal" in result.stderr
    result = _closed("<&-", "cleanup", "--interactive", cwd=repo, env=LATER)
    assert result.code == 2, result
    assert "Traceback" not in result.stderr
    assert "standard input is closed" in result.stderr
    listed = cli("cleanup", "--json", env=LATER)
    assert listed.json()["last_pass"] is None, "no pass is recorded without an answer"


def test_inject_with_stdin_closed_says_so_and_a_hook_does_not_block(repo: Path) -> None:
    result = _closed("<&-", "inject", cwd=repo)
    assert result.code == 2, result
    assert "standard input is closed" in result.stderr
    assert _closed("<&-", "hook", "prompt", cwd=repo).code == 0


def test_a_recall_batch_from_a_closed_stdin_says_so(repo: Path) -> None:
    result = _closed("<&-", "recall", "--batch", "-", cwd=repo)
    assert result.code == 2, result
    assert "standard input is closed" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [("pending",), ("neighbours", "src/app.py"), ("list",)])
def test_a_closed_stdout_ends_quietly(cli: Cli, repo: Path, args: tuple[str, ...]) -> None:
    _remember(cli)
    result = _closed(">&-", *args, cwd=repo)
    assert result.code != 0, result
    assert "Traceback" not in result.stderr
    assert "standard output is closed" in result.stderr


# -- small ones ----------------------------------------------------------------------------------


def test_version_as_json(cli: Cli) -> None:
    from recall import __version__

    for args in (("--json", "--version"), ("--version", "--json")):
        result = cli(*args)
        assert result.code == 0, result
        assert result.json() == {"version": __version__}
    assert cli("--version").stdout == f"tether {__version__}\n"


def test_an_empty_author_is_refused(cli: Cli, repo: Path) -> None:
    result = cli(
        "remember", "flush before exit", "-c", "gotcha", "-f", "src/app.py", "--author", ""
    )
    assert result.code == 2, result
    assert "--author is empty" in result.stderr
    assert not list((repo / ".tether" / "memories").glob("*.md"))


def test_a_byte_order_mark_on_stdin_details_is_dropped(cli: Cli) -> None:
    done = cli(
        "remember", "flush before exit", "-c", "gotcha", "-f", "src/app.py", "--details", "-",
        "--json", stdin="\ufeffThe buffer is lost on exit.",
    )  # fmt: skip
    assert done.code == 0, done
    shown = cli("show", done.json()["id"], "--json")
    assert shown.json()["details"] == "The buffer is lost on exit."


def test_an_id_given_twice_to_one_decision_says_so(cli: Cli) -> None:
    memory = _remember(cli)
    result = cli("cleanup", "--archive", memory, memory)
    assert result.code == 2, result
    assert f"memory {memory} is given twice to --archive; give it once" in result.stderr


def test_a_file_named_like_the_store_folder_is_said_so(repo: Path) -> None:
    (repo / ".tether").write_text("not a folder\n")
    result = run_tether("remember", "flush first", "-c", "gotcha", "-f", "src/app.py", cwd=repo)
    assert result.code == 3, result
    assert f"{repo / '.tether'} is not a folder" in result.stderr
    assert (repo / ".tether").read_text() == "not a folder\n"


@pytest.mark.parametrize("taken", [".tether", ".tether/memories"])
@pytest.mark.parametrize("command", [("init",), ("--json", "init"), ("index",)])
def test_init_and_index_say_a_store_folder_named_by_a_file(
    repo: Path, taken: str, command: tuple[str, ...]
) -> None:
    (repo / taken).parent.mkdir(exist_ok=True)
    (repo / taken).write_text("not a folder\n")
    result = run_tether(*command, cwd=repo)
    assert result.code == 3, result
    assert "Traceback" not in result.stderr
    said = f"{repo / taken} is not a folder (a file or a link has its name)"
    if "--json" in command:
        assert said in json.loads(result.stderr)["error"]
    else:
        assert said in result.stderr
    assert (repo / taken).read_text() == "not a folder\n"


def test_bytes_that_are_not_utf8_are_shown_as_given_and_say_what_to_do(repo: Path) -> None:
    # a command line's bytes come to Python as surrogate escapes ("\udcff" for the byte 0xff)
    path = run_tether("remember", "x", "-c", "gotcha", "-f", "src/\udcff.py", cwd=repo)
    assert path.code == 2, path
    assert "--file 'src/\\xff.py' is not valid UTF-8" in path.stderr
    assert "udcff" not in path.stderr
    summary = run_tether("remember", "caf\udce9", "-c", "gotcha", "-f", "src/app.py", cwd=repo)
    assert summary.code == 2, summary
    assert "summary is not valid UTF-8 text: give it as UTF-8" in summary.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs a device that is always full")
@pytest.mark.parametrize(
    "args",
    [("export",), ("list",), ("list", "--json"), ("stats",), ("--version",), ("list", "--help")],
)
def test_output_to_a_full_device_fails_in_one_line(
    cli: Cli, repo: Path, args: tuple[str, ...]
) -> None:
    for number in range(3):
        _remember(cli, f"flush before close, case {number}")
    result = _closed(">/dev/full", *args, cwd=repo)
    assert result.code == 3, result  # not 0 or 1: a script must not take it for a whole output
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
    assert "could not write standard output (No space left on device)" in result.stderr


# -- the repository root as --file ---------------------------------------------------------------


def test_the_repository_root_as_a_file_is_refused_as_the_command_takes_it(cli: Cli) -> None:
    remembered = cli("remember", "the whole thing", "-c", "gotcha", "-f", ".")
    assert remembered.code == 2
    assert "--file '.' is the repository root; name a file inside it" in remembered.stderr
    recalled = cli("recall", "anything", "--file", ".")
    assert recalled.code == 2
    assert "--file '.' is the repository root; name a file inside it" in recalled.stderr
    listed = cli("list", "--file", ".")
    assert listed.code == 2
    assert "is the repository root; name a file or folder inside it" in listed.stderr


# -- empty paths ---------------------------------------------------------------------------------


def test_an_empty_batch_is_refused_not_run_as_one_recall(cli: Cli) -> None:
    _remember(cli)
    result = cli("recall", "--batch", "", "-f", "src/app.py", "--no-record")
    assert result.code == 2, result
    assert result.stdout == ""
    assert result.stderr.startswith("tether: error: --batch is empty; give the path of")


@pytest.mark.parametrize(
    "args",
    [("import", ""), ("-C", "", "list"), ("agent-config", "claude-code", "--dir", "")],
)
def test_an_empty_path_argument_is_refused_by_name(repo: Path, args: tuple[str, ...]) -> None:
    before = sorted(p.name for p in repo.iterdir())
    result = run_tether(*args, "--json", cwd=repo)
    assert result.code == 2, result
    label = {"import": "FILE", "-C": "-C", "agent-config": "--dir"}[args[0]]
    assert json.loads(result.stderr)["error"].startswith(f"{label} is empty; give ")
    assert sorted(p.name for p in repo.iterdir()) == before  # nothing written in the repository


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("recall", "--open", "/etc/passwd"), "--open '/etc/passwd' resolves outside"),
        (("recall", "--open", ""), "--open is empty"),
        (("inject", "--open", "", "flush"), "--open is empty"),
        (("recall", "-f", "src/app.py", "--open", ""), "--open is empty"),
    ],
)
def test_a_refused_open_path_names_open(cli: Cli, args: tuple[str, ...], said: str) -> None:
    _remember(cli)
    result = cli(*args)
    assert result.code == 2, result
    assert f"tether: error: {said}" in result.stderr
