"""What a hook's process reads before the hook itself runs (the folder its JSON names, the
repository's settings), given input crafted to break a parser: the agent still gets exit 0
and no output, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_tether

from recall import hooks

DEPTH = 100_000
"""Nesting far past what Python's parsers recurse into."""

QUIET = {"TETHER_WARM": "0"}


def _deep_json(repo: Path) -> str:
    return (
        '{"session_id": "s1", "cwd": '
        + json.dumps(str(repo))
        + ', "x": '
        + "[" * DEPTH
        + "]" * DEPTH
        + "}"
    )


@pytest.mark.parametrize("event", hooks.EVENTS)
def test_hook_json_nested_past_the_parsers_depth_prints_nothing(repo: Path, event: str) -> None:
    done = run_tether("hook", event, cwd=repo, stdin=_deep_json(repo), env=QUIET)
    assert (done.code, done.stdout) == (0, ""), done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("event", hooks.EVENTS)
def test_a_hook_cwd_that_names_no_file_prints_nothing(repo: Path, event: str) -> None:
    payload = '{"session_id": "s1", "cwd": "/tmp/\\ud800x", "prompt": "hi"}'
    done = run_tether("hook", event, cwd=repo, stdin=payload, env=QUIET)
    assert (done.code, done.stdout) == (0, ""), done.stderr
    assert "Traceback" not in done.stderr


def test_settings_nested_past_the_parsers_depth_are_reported_and_skipped(repo: Path) -> None:
    assert run_tether("init", cwd=repo).code == 0
    remembered = run_tether(
        "remember", "login retries stay at three", "-c", "gotcha", "-f", "src/app.py", cwd=repo
    )
    assert remembered.code == 0, remembered.stderr
    (repo / "pyproject.toml").write_text(
        "[tool.tether]\na = " + "[" * DEPTH + "]" * DEPTH + "\n", encoding="utf-8"
    )
    done = run_tether("inject", "why do login retries fail", cwd=repo, env=QUIET)
    assert done.code == 0, done.stderr
    assert "login retries stay at three" in done.stdout
    assert f"{repo / 'pyproject.toml'}: not read (nested deeper than a settings file" in done.stderr
    assert "Traceback" not in done.stderr
