"""``--command`` of ``editor-config`` read as ``agent-config`` reads it, ``--only`` checked
against Helix's languages, a plugin folder whose subfolder is a file, and the parsed
``config_json`` of the JSON snippets."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from conftest import run_tether


def program(path: Path) -> Path:
    """A stand-in tether program at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("json_flag", [(), ("--json",)])
def test_a_command_with_an_unclosed_quote_is_refused_naming_the_option(
    tmp_path: Path, json_flag: tuple[str, ...]
) -> None:
    value = "/opt/it's/tether lsp"
    done = run_tether(*json_flag, "editor-config", "emacs", "--command", value, cwd=tmp_path)
    assert done.code == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    message = json.loads(done.stderr)["error"] if json_flag else done.stderr
    assert "--command" in message and "No closing quotation" in message


def test_a_program_path_with_spaces_is_one_program_and_gets_lsp(tmp_path: Path) -> None:
    tether = program(tmp_path / "my tools" / "tether")
    done = run_tether("editor-config", "emacs", "--command", str(tether), cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert f'("{tether}" "lsp")' in done.stdout
    assert "lsp" in done.stderr and "added" in done.stderr
    report = run_tether(
        "--json", "editor-config", "opencode", "--command", str(tether), cwd=tmp_path
    )
    assert report.json()["command"] == [str(tether), "lsp"]


def test_python_running_the_module_gets_lsp_too(tmp_path: Path) -> None:
    value = shlex.join([sys.executable, "-m", "recall"])
    done = run_tether("--json", "editor-config", "neovim", "--command", value, cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert done.json()["command"] == [sys.executable, "-m", "recall", "lsp"]


def test_a_command_already_running_lsp_is_written_as_given(tmp_path: Path) -> None:
    tether = program(tmp_path / "bin" / "tether")
    value = f"{tether} lsp --log-level INFO"
    done = run_tether("--json", "editor-config", "neovim", "--command", value, cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert done.json()["command"] == [str(tether), "lsp", "--log-level", "INFO"]


def test_a_relative_program_path_is_written_absolute(tmp_path: Path) -> None:
    tether = program(tmp_path / "venv" / "bin" / "tether")
    done = run_tether("editor-config", "emacs", "--command", "venv/bin/tether lsp", cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert f'("{tether}" "lsp")' in done.stdout


def test_a_missing_program_is_refused_unless_allowed(tmp_path: Path) -> None:
    value = f"{tmp_path}/nowhere/tether lsp"
    done = run_tether("editor-config", "emacs", "--command", value, cwd=tmp_path)
    assert done.code == 2 and done.stdout == ""
    assert "--command" in done.stderr and "does not exist" in done.stderr
    assert "--allow-missing" in done.stderr
    done = run_tether("editor-config", "emacs", "--command", value, "--allow-missing", cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert f'("{tmp_path}/nowhere/tether" "lsp")' in done.stdout


def test_an_unknown_helix_language_is_refused_with_the_closest_one(tmp_path: Path) -> None:
    args = ("editor-config", "helix", "--only", "pyhton", "--only", "rust")
    done = run_tether(*args, cwd=tmp_path)
    assert done.code == 2 and done.stdout == ""
    assert "'pyhton'" in done.stderr and "did you mean 'python'" in done.stderr
    assert "zig" not in done.stderr  # the likely meaning, not several hundred names around it
    assert "without --only, each of the" in done.stderr


def test_an_unknown_helix_language_with_no_close_one_lists_the_known_ones(tmp_path: Path) -> None:
    args = ("editor-config", "helix", "--only", "pyhton", "--only", "qqqqqq")
    done = run_tether(*args, cwd=tmp_path)
    assert done.code == 2 and done.stdout == ""
    assert "did you mean 'python'" in done.stderr and "'qqqqqq'" in done.stderr
    assert "rust" in done.stderr and "zig" in done.stderr  # the known ones are listed


def test_a_file_where_the_plugin_needs_a_folder_is_named_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    tether = program(tmp_path / "bin" / "tether")
    folder = tmp_path / "p2"
    folder.mkdir()
    (folder / "hooks").write_text("mine\n", encoding="utf-8")
    args = ("agent-config", "claude-code", "--dir", "p2", "--command", str(tether))
    for json_flag in ((), ("--json",)):
        done = run_tether(*json_flag, *args, cwd=tmp_path)
        assert done.code == 2, done.stderr
        message = json.loads(done.stderr)["error"] if json_flag else done.stderr
        assert f"{folder / 'hooks'} is a file where a folder is needed" in message
        assert "File exists" not in message
        assert "move" in message and "--dir" in message
        assert sorted(p.name for p in folder.iterdir()) == ["hooks"]  # nothing written
        assert (folder / "hooks").read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize(
    "args",
    [
        ("editor-config", "sublime"),
        ("editor-config", "claude-code"),
        ("editor-config", "opencode"),
        ("agent-config", "opencode"),
    ],
)
def test_json_snippets_come_parsed_too(tmp_path: Path, args: tuple[str, ...]) -> None:
    tether = program(tmp_path / "bin" / "tether")
    done = run_tether("--json", *args, "--command", str(tether), cwd=tmp_path)
    assert done.code == 0, done.stderr
    report = done.json()
    assert isinstance(report["config"], str)  # kept as it was for existing readers
    assert report["config_json"] == json.loads(report["config"])
