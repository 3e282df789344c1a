"""``tether --wait SECONDS``: how long a command that writes waits for another Tether process
holding the store, before or after the command name; a bad value is refused naming it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import run_tether

from recall.errors import EXIT_BAD_INPUT, EXIT_FAILURE
from recall.store.busy import WRITE_WAIT_MAX_SECONDS, WRITE_WAIT_SECONDS
from tests.test_cli_busy import REFUSED, WAITING, index_held, lock_held


@pytest.fixture
def remembered(repo: Path) -> Path:
    done = run_tether("remember", "login retries stay at three", "-c", "gotcha", cwd=repo)
    assert done.code == 0, done.stderr
    return repo


def test_the_longest_wait_is_an_hour() -> None:
    assert WRITE_WAIT_MAX_SECONDS == 3600


@pytest.mark.parametrize("value", ["-1", "abc", "nan", "inf", "3600.5", ""])
def test_a_bad_wait_is_refused_naming_the_option(remembered: Path, value: str) -> None:
    done = run_tether("--wait", value, "remember", "never written", "-c", "pref", cwd=remembered)
    assert done.code == EXIT_BAD_INPUT, done.stderr
    assert f"argument --wait: {value!r} is not a number of seconds from 0 to 3600" in done.stderr
    assert "never written" not in run_tether("list", cwd=remembered).stdout


@pytest.mark.parametrize("value", ["0", "2.5", "3600"])
def test_a_wait_in_range_is_taken_before_or_after_the_command(remembered: Path, value: str) -> None:
    before = run_tether(
        "--wait", value, "remember", f"before {value}", "-c", "pref", cwd=remembered
    )
    after = run_tether("remember", f"after {value}", "-c", "pref", "--wait", value, cwd=remembered)
    assert before.code == after.code == 0, before.stderr + after.stderr
    listed = run_tether("list", cwd=remembered).stdout
    assert f"before {value}" in listed and f"after {value}" in listed


def test_a_wait_of_zero_fails_at_once_without_a_duration(remembered: Path) -> None:
    with lock_held(remembered):
        done = run_tether("--wait", "0", "remember", "never written", "-c", "pref", cwd=remembered)
    assert done.code == EXIT_FAILURE, done.stderr
    assert WAITING not in done.stderr  # said only after a second of waiting
    assert f"the project store {remembered / '.tether'} {REFUSED}" in done.stderr
    assert "for over" not in done.stderr and "nothing was written" in done.stderr
    assert "never written" not in run_tether("list", cwd=remembered).stdout


def test_a_long_wait_rides_out_a_holder_the_default_would_not(remembered: Path) -> None:
    """``--wait`` longer than the default: a holder letting go after the default wait has
    passed no longer fails the write."""
    import threading

    held = threading.Event()

    def hold() -> None:
        with lock_held(remembered):
            held.set()
            time.sleep(WRITE_WAIT_SECONDS + 5)  # past the default, whenever the write began

    threading.Thread(target=hold, daemon=True).start()
    assert held.wait(10)
    wait = f"{WRITE_WAIT_SECONDS + 30:g}"
    done = run_tether("--wait", wait, "remember", "written late", "-c", "pref", cwd=remembered)
    assert done.code == 0, done.stderr
    assert done.stderr.count(WAITING) == 1
    assert "written late" in run_tether("list", cwd=remembered).stdout


def test_the_code_map_refresh_waits_as_asked(remembered: Path) -> None:
    """``tether index``'s refresh of the code map meets another connection holding the index
    after its store was opened: it gives up after the asked wait, naming the store and how long
    it waited (nothing written)."""
    from argparse import Namespace

    from recall.cli.cmd_genome import _genome, _refreshed
    from recall.cli.context import CommandContext
    from recall.errors import StoreBusy

    ctx = CommandContext(
        json_output=False, cwd=remembered, command="index", args=Namespace(wait=1.0)
    )
    try:
        genome, _root = _genome(ctx)
        with index_held(remembered), pytest.raises(StoreBusy) as raised:
            _refreshed(genome, ctx)
    finally:
        ctx.close()
    assert REFUSED in str(raised.value) and "for over 1 s" in str(raised.value)


@pytest.mark.parametrize("command", [["mcp"], ["lsp"], ["hook", "pre-edit"], ["warm"]])
def test_the_servers_and_hooks_refuse_a_wait_of_their_own(
    remembered: Path, command: list[str]
) -> None:
    done = run_tether("--wait", "2", *command, cwd=remembered)
    # a hook's own mistake never exits 2, which an agent takes as "block this action"
    assert done.code == (0 if command[0] == "hook" else EXIT_BAD_INPUT), done.stderr
    assert f"--wait: `tether {command[0]}` keeps the waits" in done.stderr
    assert "leave --wait out" in done.stderr


@pytest.mark.parametrize("command", ["hook", "lsp", "mcp", "warm"])
def test_the_servers_and_hooks_leave_wait_out_of_their_help(remembered: Path, command: str) -> None:
    done = run_tether(command, "--help", cwd=remembered)
    assert done.code == 0, done.stderr
    assert "--wait" not in done.stdout


def test_a_command_that_writes_keeps_wait_in_its_help(remembered: Path) -> None:
    done = run_tether("remember", "--help", cwd=remembered)
    assert done.code == 0, done.stderr
    assert "--wait SECONDS" in done.stdout


def test_the_commands_with_waits_of_their_own() -> None:
    from recall.cli.context import OWN_WAITS

    assert sorted(OWN_WAITS) == ["hook", "lsp", "mcp", "warm"]


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (0, ""),
        (0.04, ""),
        (0.5, " for over 0.5 s"),
        (2.03, " for over 2 s"),
        (15, " for over 15 s"),
    ],
)
def test_a_wait_is_said_to_a_tenth_and_not_at_all_when_there_was_none(
    seconds: float, said: str
) -> None:
    from recall.store.busy import held_for

    assert held_for(seconds) == said
