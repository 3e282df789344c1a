"""A cloned repository is untrusted input: its settings never choose a command for Tether to
run. ``distill_command`` is read from the user's own ``config.toml`` in the Tether home only;
a repository file that sets it is named in a warning and ignored."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import CliResult

from recall import hooks

from .conftest import History

Cli = Callable[..., CliResult]


def marker_command(tmp_path: Path) -> tuple[str, Path]:
    """A distill command (as a TOML list) that leaves a marker file when run; and the marker."""
    marker = tmp_path / "ran.marker"
    script = tmp_path / "mark.py"
    script.write_text(
        "import pathlib, sys\n"
        f"pathlib.Path({str(marker)!r}).write_text('ran')\n"
        "sys.stdin.read()\n"
        "print('[]')\n",
        encoding="utf-8",
    )
    return json.dumps([sys.executable, str(script)]), marker


@pytest.fixture
def hook_log() -> Iterator[list[str]]:
    """What the hooks log (their warnings have nowhere else to go)."""
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    handler = Collect(level=logging.INFO)
    level = hooks.log.level
    hooks.log.addHandler(handler)
    hooks.log.setLevel(logging.INFO)
    yield lines
    hooks.log.removeHandler(handler)
    hooks.log.setLevel(level)


def start(cli: Cli, session: str) -> CliResult:
    """``tether session start --session SESSION --json``, expected to succeed."""
    result = cli("session", "start", "--session", session, "--json")
    assert result.code == 0, result
    return result


def test_a_repository_setting_the_command_never_runs_it(
    history: History, cli: Cli, tmp_path: Path, tether_home: Path, hook_log: list[str]
) -> None:
    command, marker = marker_command(tmp_path)
    assert cli("init").code == 0
    config = history.root / ".tether" / "config.toml"
    config.write_text(f"auto_distill = true\ndistill_command = {command}\n", encoding="utf-8")
    start(cli, "earlier")
    history.commit("Never call flush() from the signal handler", "src/app.py")

    # the session-start hook: the heuristic proposes, the command is not run, the log says why
    out = hooks.run("session-start", json.dumps({"session_id": "hooked", "cwd": str(history.root)}))
    assert "awaits review (tether pending)" in out
    assert not marker.exists()
    assert any(str(config) in line and "distill_command" in line for line in hook_log), hook_log

    # `tether session start` and `tether distill`: not run either, and said on stderr
    history.commit("Always close the upload handle", "src/util.py")
    started = start(cli, "by-hand")
    assert not marker.exists()
    assert len(started.json()["distilled"]) == 1  # the heuristic's proposal
    result = cli("distill", "--since", "HEAD~2", "--json")
    assert result.code in (0, 1), result
    assert not marker.exists()
    for said in (started.stderr, result.stderr):
        warning = next(line for line in said.splitlines() if "distill_command" in line)
        assert str(config) in warning and "ignored" in warning
        assert str(tether_home / "config.toml") in warning  # where the user's own file goes


def test_pyproject_cannot_set_it_either(history: History, cli: Cli, tmp_path: Path) -> None:
    command, marker = marker_command(tmp_path)
    (history.root / "pyproject.toml").write_text(
        f"[tool.tether]\ndistillCommand = {command}\n", encoding="utf-8"
    )
    history.commit("Never call flush() from the signal handler", "src/app.py")
    result = cli("distill", "--since", "HEAD~1", "--json")
    assert result.code == 0, result
    assert not marker.exists()
    assert "pyproject.toml:2: distillCommand ignored" in result.stderr


def test_the_same_command_in_the_users_own_config_runs(
    history: History, cli: Cli, tmp_path: Path, tether_home: Path
) -> None:
    command, marker = marker_command(tmp_path)
    tether_home.mkdir(parents=True, exist_ok=True)
    (tether_home / "config.toml").write_text(f"distill_command = {command}\n", encoding="utf-8")
    history.commit("Never call flush() from the signal handler", "src/app.py")
    result = cli("distill", "--since", "HEAD~1", "--json")
    assert marker.exists()
    assert result.code == 1  # the command said "nothing here", and it was believed
    assert "distill_command" not in result.stderr
