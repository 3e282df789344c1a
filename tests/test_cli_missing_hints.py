"""What a command says when there is nothing set up, or an argument is missing or misplaced:
each names what to do."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import Cli, ok


def test_export_in_a_repository_with_no_store_says_what_to_do(cli: Cli, repo: Path) -> None:
    result = cli("export")
    assert result.code == 1
    assert result.stdout == ""
    assert "`tether init`" in result.stderr


def test_stats_before_init_says_to_run_init(cli: Cli, repo: Path) -> None:
    result = cli("stats")
    assert "`tether init`" in result.stderr
    assert "`tether init`" not in result.stdout
    ok(cli("init"))
    assert "`tether init`" not in ok(cli("stats")).stderr


def test_an_import_line_with_a_multiline_summary_names_the_details_key(
    cli: Cli, repo: Path, tmp_path: Path
) -> None:
    line = {"summary": "First line\nsecond line", "category": "gotcha", "files": []}
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = cli("import", str(path))
    assert result.code == 2, result
    assert "in.jsonl:1:" in result.stderr
    assert '"details"' in result.stderr
    assert "--details" not in result.stderr


def test_remember_with_a_multiline_summary_still_names_the_option(cli: Cli) -> None:
    result = cli("remember", "First line\nsecond line", "-c", "gotcha")
    assert result.code == 2
    assert "--details" in result.stderr


def test_session_without_an_action_names_the_choices(cli: Cli) -> None:
    result = cli("session")
    assert result.code == 2
    assert "action" in result.stderr and "start" in result.stderr.split("error:")[-1]
