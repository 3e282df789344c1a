"""Auto-distill at a session start: the previous session's commits become pending proposals
when, and only when, the repository's settings turn it on."""

from __future__ import annotations

import json
from collections.abc import Callable

from conftest import CliResult

from lsp_server.session_start import ORIGIN
from recall import hooks
from recall.cli.cmd_agent_config import HOOK_TIMEOUT_SECONDS
from recall.distill_words import COMMAND_TIMEOUT
from recall.lifecycle.session_start import NO_COMMAND_ORIGINS

from .conftest import History

Cli = Callable[..., CliResult]


def _turn_on(history: History, cli: Cli) -> None:
    assert cli("init").code == 0
    (history.root / ".tether" / "config.toml").write_text("auto_distill = true\n")


def _start(cli: Cli, session: str) -> dict:
    result = cli("session", "start", "--session", session, "--json")
    assert result.code == 0, result
    return result.json()


def test_the_next_session_start_distills_the_last_sessions_commits_as_pending(
    history: History, cli: Cli
) -> None:
    _turn_on(history, cli)
    assert _start(cli, "first")["distilled"] == []  # no session before it
    history.commit("Never call flush() from the signal handler because it deadlocks")
    history.commit("Bump the version")  # carries nothing durable

    second = _start(cli, "second")
    assert len(second["distilled"]) == 1
    pending = cli("pending", "--json").json()
    ids = [item["id"] for item in (pending if isinstance(pending, list) else pending["pending"])]
    assert ids == second["distilled"]
    # resuming the same session distills nothing again
    assert _start(cli, "second")["distilled"] == []


def test_the_session_start_hook_says_what_awaits_review(history: History, cli: Cli) -> None:
    _turn_on(history, cli)
    _start(cli, "earlier")
    history.commit("Workaround: always pin the allocator, the new one leaks on fork")

    out = hooks.run("session-start", json.dumps({"session_id": "later", "cwd": str(history.root)}))
    assert "awaits review (tether pending)" in out


def test_off_by_default_nothing_is_read_or_written(history: History, cli: Cli) -> None:
    assert cli("init").code == 0
    _start(cli, "first")
    history.commit("Never call flush() from the signal handler because it deadlocks")
    before = history.memory_files()
    assert _start(cli, "second")["distilled"] == []
    assert history.memory_files() == before


def test_hooks_never_run_the_command_as_it_may_outlast_them() -> None:
    assert frozenset({"hook"}) == NO_COMMAND_ORIGINS
    # the reason, pinned: one call may take longer than the agent lets a hook run
    assert COMMAND_TIMEOUT > HOOK_TIMEOUT_SECONDS
    assert ORIGIN not in NO_COMMAND_ORIGINS  # the language server's pass runs in the background
