"""A key of a person's own on a symbol anchor holds what YAML reads, which may be a value JSON
cannot hold (an unquoted date or time, binary data, a NaN): every command and guard keeps
working, every JSON Tether writes stays strict, an export says what it carries instead, and
the file keeps the value as it was written when Tether rewrites the anchors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, make_repo
from test_hooks import edit_input

Cli = Callable[..., CliResult]

HAND = """---
category: context
files: [src/util.py]
anchors:
  - symbol: src/util.py::helper
    {line}
---
helper reads the clock
"""


def strict(text: str) -> Any:
    """``text`` read as strict JSON: a NaN or Infinity fails the test."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def asks(cli: Cli, repo: Path, path: str) -> str:
    """The pre-edit hook's decision for an agent's edit of ``path`` ('' when it says nothing)."""
    done = cli("hook", "pre-edit", stdin=json.dumps(edit_input(repo, path)))
    assert done.code == 0, done.stderr
    if not done.stdout.strip():
        return ""
    return str(json.loads(done.stdout)["hookSpecificOutput"].get("permissionDecision", ""))


@pytest.mark.parametrize(
    ("line", "exported", "held"),
    [
        ("reviewed: 2026-01-01", "2026-01-01", "a YAML date"),
        ("reviewed: 2026-01-01T10:00:00Z", "2026-01-01T10:00:00+00:00", "a YAML date"),
        ("note: !!binary aGVsbG8=", "aGVsbG8=", "binary data"),
        ("note: .nan", ".nan", "a NaN or infinite number"),
        ("note: -.inf", "-.inf", "a NaN or infinite number"),
    ],
)
def test_every_command_and_guard_works_beside_such_a_value(
    repo: Path, cli: Cli, line: str, exported: str, held: str
) -> None:
    assert (
        cli(
            "remember", "app start order is fixed", "-c", "gotcha", "-f", "src/app.py", "--guard"
        ).code
        == 0
    )
    assert asks(cli, repo, "src/app.py") == "ask"
    hand = repo / ".tether" / "memories" / "hand.md"
    written = HAND.format(line=line)
    hand.write_text(written, encoding="utf-8")
    key = line.partition(":")[0]

    listed = cli("list")
    assert listed.code == 0, listed.stderr
    assert "helper reads the clock" in listed.stdout and "app start order" in listed.stdout
    assert asks(cli, repo, "src/app.py") == "ask"  # the guard still holds
    assert cli("doctor").code == 0
    recalled = cli("recall", "-f", "src/util.py")
    assert recalled.code == 0 and "helper reads the clock" in recalled.stdout

    [mine] = [m for m in strict(cli("--json", "list").stdout) if m["summary"].startswith("helper")]
    assert mine["anchors"][0]["extra"] == {key: exported}
    shown = cli("--json", "show", mine["id"])
    assert shown.code == 0 and strict(shown.stdout)["anchors"][0]["extra"] == {key: exported}

    done = cli("export")
    assert done.code == 0, done.stderr
    records = [strict(text) for text in done.stdout.splitlines()]
    [record] = [r for r in records if r["id"] == mine["id"]]
    assert record["anchors"][0]["extra"] == {key: exported}
    said = f"{mine['id']}: key '{key}' of anchor src/util.py::helper holds {held}"
    assert said in done.stderr and f'exported as "{exported}"' in done.stderr

    # a rewrite of the anchors (its body recorded) keeps the line as the person wrote it
    assert cli("confirm", mine["id"]).code == 0, hand.read_text()
    assert f"\n    {line}\n" in hand.read_text(encoding="utf-8")
    assert hand.read_text(encoding="utf-8").count("\n    body: ") == 1
    assert cli("list").code == 0


def test_a_hand_written_value_of_the_card_is_strict_json_in_show(repo: Path, cli: Cli) -> None:
    hand = repo / ".tether" / "memories" / "hand.md"
    assert cli("init").code == 0
    hand.write_text(
        "---\ncategory: context\nfiles: [src/util.py]\nconfirmed: 2026-01-01\n"
        "former_files: [.nan, 2026-01-02]\n---\nhelper reads the clock\n",
        encoding="utf-8",
    )
    [mine] = strict(cli("--json", "list").stdout)
    shown = cli("--json", "show", mine["id"])
    assert shown.code == 0, shown.stderr
    card = strict(shown.stdout)
    assert (card["confirmed"], card["former_files"]) == ("2026-01-01", [".nan", "2026-01-02"])


def test_a_key_of_an_anchor_object_on_an_import_line_is_written_and_comes_back(
    repo: Path, tmp_path: Path, cli: Cli
) -> None:
    assert cli("init").code == 0
    line = {
        "id": "abcd0003",
        "summary": "helper reads the clock",
        "category": "gotcha",
        "anchors": [{"symbol": "src/util.py::helper", "note": "mine", "body": "abc"}],
    }
    done = cli("--json", "import", "-", stdin=json.dumps(line) + "\n")
    assert done.code == 0, done.stdout + done.stderr
    text = (repo / ".tether" / "memories" / "abcd0003.md").read_text(encoding="utf-8")
    assert "\n  note: mine\n" in text

    first = cli("export")
    assert first.code == 0, first.stderr
    [record] = first.json_lines()
    assert record["anchors"][0]["extra"] == {"note": "mine"}
    other = make_repo(tmp_path / "other")
    assert cli("import", "-", cwd=other, stdin=first.stdout).code == 0
    again = cli("export", cwd=other)
    assert again.code == 0, again.stderr
    assert again.json_lines() == first.json_lines()

    twice = dict(line, id="abcd0004")
    twice["anchors"] = [{"symbol": "src/util.py::helper", "note": "x", "extra": {"note": "y"}}]
    refused = cli("--json", "import", "-", stdin=json.dumps(twice) + "\n")
    [result] = refused.json_lines()
    assert result["status"] == "error"
    assert "gives 'note' twice, beside 'extra' and in it" in result["error"]
    assert not (repo / ".tether" / "memories" / "abcd0004.md").exists()
    twice["anchors"] = [{"symbol": "src/util.py::helper", "extra": ["note", "mine"]}]
    refused = cli("--json", "import", "-", stdin=json.dumps(twice) + "\n")
    [result] = refused.json_lines()
    assert result["status"] == "error"
    assert "'extra' of anchor 'src/util.py::helper' must be a mapping" in result["error"]


def test_export_then_import_then_export_keeps_such_values_as_the_export_said(
    repo: Path, tmp_path: Path, cli: Cli
) -> None:
    assert cli("init").code == 0
    hand = repo / ".tether" / "memories" / "hand.md"
    hand.write_text(HAND.format(line="reviewed: 2026-01-01"), encoding="utf-8")
    first = cli("export")
    assert first.code == 0, first.stderr
    other = make_repo(tmp_path / "other")
    assert cli("import", "-", cwd=other, stdin=first.stdout).code == 0
    again = cli("export", cwd=other)
    assert again.code == 0 and again.stderr == ""  # now text, as the first export said
    assert again.json_lines() == first.json_lines()
