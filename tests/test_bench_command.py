"""A benchmark prints the command that made its tables, ready to be run again."""

from __future__ import annotations

import shlex
import sys

import pytest

from bench.table import print_command


def test_the_printed_command_runs_as_given(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = 'w:CHANNEL_WEIGHTS={"file": 1.0, "words": 1.5}'
    monkeypatch.setattr(sys, "argv", ["bench/quality.py", "--variant", variant, "--keep", "/k"])
    print_command()
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("command: "))
    words = shlex.split(line.removeprefix("command: "))
    assert words == ["python", "-m", "bench.quality", "--variant", variant, "--keep", "/k"]
