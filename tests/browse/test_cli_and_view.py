"""``tether browse`` without a terminal, and the filter rules the browser applies."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

from conftest import CliResult

from recall.browse.view import STATUS_CYCLE, Entry, View, matches, step, text_matches
from recall.model import STATUSES, Memory

Cli = Callable[..., CliResult]


def test_browse_without_a_terminal_points_to_list(cli: Cli) -> None:
    result = cli("browse")  # stdin and stdout are pipes here
    assert result.code == 2
    assert result.stdout == ""
    assert "needs a terminal" in result.stderr
    assert "tether list" in result.stderr


def test_browse_with_json_points_to_list_json(cli: Cli) -> None:
    result = cli("browse", "--json")
    assert result.code == 2
    assert "tether list --json" in result.stderr


def test_other_commands_do_not_load_textual() -> None:
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, recall.cli.main; print('textual' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == "False"


def test_status_cycle_covers_every_status_once() -> None:
    assert STATUS_CYCLE[0] == "all"
    assert sorted(STATUS_CYCLE[1:]) == sorted(STATUSES)
    seen = []
    value = "all"
    for _ in STATUS_CYCLE:
        value = step(STATUS_CYCLE, value)
        seen.append(value)
    assert seen[-1] == "all" and len(set(seen)) == len(STATUS_CYCLE)
    assert step(STATUS_CYCLE, "no-such-status") == "all"


def test_text_filter_needs_every_word_anywhere() -> None:
    memory = Memory(
        id="0123abcd",
        category="gotcha",
        summary="Retry the Upload",
        details="after idle",
        files=("src/app.py",),
    )
    assert text_matches(memory, "upload IDLE")
    assert text_matches(memory, "app.py 0123")
    assert text_matches(memory, "   ")
    assert not text_matches(memory, "upload download")


def test_view_filters_combine() -> None:
    memory = Memory(id="0123abcd", category="gotcha", summary="s", status="archived")
    entry = Entry(memory, "global")
    assert matches(entry, View())
    assert matches(entry, View(category="gotcha", status="archived", scope="global"))
    assert not matches(entry, View(category="pref"))
    assert not matches(entry, View(status="active"))
    assert not matches(entry, View(scope="project"))


def test_unreadable_files_are_looked_at_again_every_two_seconds() -> None:
    from recall.browse.app import LOOK_AGAIN_S

    assert LOOK_AGAIN_S == 2.0
