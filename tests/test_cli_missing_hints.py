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


def test_a_missing_input_file_is_said_alike_by_import_and_recall_batch(
    cli: Cli, repo: Path, tmp_path: Path
) -> None:
    """``import FILE`` and ``recall --batch FILE`` name the file, say what went wrong in the
    same words and what to give instead; both read FILE relative to ``-C``."""
    for args, what in (
        (("import", "missing.jsonl"), "a JSON Lines file of memories"),
        (("recall", "--batch", "missing.jsonl"), "a JSON Lines file of queries"),
    ):
        result = cli(*args)
        assert result.code == 2, result
        assert result.stdout == ""
        said = f"tether: error: missing.jsonl: no such file; give the path of {what}"
        assert result.stderr.startswith(said), result.stderr
        assert result.stderr.rstrip().endswith("(or - for stdin)")
        folder = cli(*args[:-1], "src")
        assert folder.code == 2, folder
        assert "src: cannot be read (Is a directory); give the path of" in folder.stderr
    queries = repo / "queries.jsonl"
    queries.write_text('{"prompt": "flush"}\n', encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = cli("-C", str(repo), "recall", "--batch", "queries.jsonl", cwd=elsewhere)
    assert done.code == 0, done
    assert done.json_lines()[0]["line"] == 1
