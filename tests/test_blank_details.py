"""Details that hold only whitespace are refused, naming the argument or key that gave them,
as a blank summary is: what a person wrote is never silently dropped. Empty details are none,
as asked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult

WRITE = ("-c", "gotcha", "-f", "README.md")


def _memory_files(repo: Path) -> list[Path]:
    return sorted((repo / ".tether" / "memories").glob("*.md"))


def test_remember_refuses_whitespace_details_naming_the_option(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    done = cli("remember", "the pool must be closed", *WRITE, "--details", " \t\n ")
    assert done.code == 2
    line = done.stderr.strip()
    assert "\n" not in line
    assert "--details holds only whitespace; nothing written" in line
    assert "leave --details out" in line
    assert _memory_files(repo) == []


def test_remember_refuses_whitespace_read_from_stdin(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    done = cli("remember", "the pool must be closed", *WRITE, "--details", "-", stdin="\n  \n")
    assert done.code == 2
    assert "--details (read from stdin) holds only whitespace" in done.stderr
    assert _memory_files(repo) == []


def test_empty_details_are_none_as_asked(repo: Path, cli: Callable[..., CliResult]) -> None:
    done = cli("remember", "the pool must be closed", *WRITE, "--details", "", "--json")
    assert done.code == 0, done.stderr
    assert "whitespace" not in done.stderr
    shown = cli("show", done.json()["id"], "--json").json()
    assert shown["details"] == ""


def test_supersede_refuses_whitespace_details(repo: Path, cli: Callable[..., CliResult]) -> None:
    old = cli("remember", "the pool must be closed", *WRITE, "--json").json()["id"]
    done = cli("supersede", old, "the pool is closed by its owner", *WRITE, "--details", "  ")
    assert done.code == 2
    assert "--details holds only whitespace" in done.stderr
    assert cli("show", old, "--json").json()["status"] == "active"


def test_import_refuses_a_line_whose_details_are_whitespace(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    lines = [
        {"summary": "blank details", "category": "gotcha", "details": "   "},
        {"summary": "real details", "category": "gotcha", "details": "close it twice"},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    done = cli("import", "-", stdin=text)
    assert done.code == 2
    assert "-:1: 'details' holds only whitespace; nothing written" in done.stderr
    assert len(_memory_files(repo)) == 1
