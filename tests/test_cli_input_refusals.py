"""Arguments, settings and environment values the CLI cannot use are refused by name, never
silently dropped; a closed stdin or stdout ends a command without a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult

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
