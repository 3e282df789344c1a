"""Arguments, settings and environment values the CLI cannot use are refused by name, never
silently dropped; a closed stdin or stdout ends a command without a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, run_tether

Cli = Callable[..., CliResult]


def _remember(cli: Cli) -> str:
    done = cli("remember", "flush before exit", "-c", "gotcha", "-f", "src/app.py", "--json")
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


def test_a_hook_says_an_unreadable_variable_and_does_not_block(repo: Path) -> None:
    record = json.dumps({"session_id": "s-1", "cwd": str(repo), "prompt": "flush"})
    result = run_tether(
        "hook", "prompt", cwd=repo, stdin=record, env={"TETHER_INJECT_OTHERS": "disabled"}
    )
    assert result.code == 0, result
    assert result.stdout == ""
    assert "TETHER_INJECT_OTHERS='disabled' cannot be read" in result.stderr


# -- settings ------------------------------------------------------------------------------------


def test_a_setting_too_large_for_the_index_is_said_not_a_traceback(cli: Cli, repo: Path) -> None:
    _remember(cli)
    config = repo / ".tether" / "config.toml"
    config.write_text("archive_min_surfacings = 9223372036854775808\n", encoding="utf-8")
    result = cli("session", "start")
    assert result.code == 0, result
    assert "Traceback" not in result.stderr
    assert "config.toml: ignoring archive_min_surfacings = 9223372036854775808" in result.stderr
    assert "at most 9,223,372,036,854,775,807" in result.stderr
