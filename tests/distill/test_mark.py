"""Auto-distill reads from where it last stopped (the mark in the index's ``lifecycle`` table)
to HEAD, so sessions of other origins starting in between (an editor's, an MCP server's, a
hook's, side by side) never hide a session's commits; a rewritten history falls back to the
previous session's start."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git

from recall import hooks
from recall.distill import MARK_KEY, claim, read_mark, release
from recall.policy.sessions import count_turn
from recall.settings import user_config_path

from .conftest import History

Cli = Callable[..., CliResult]


def turn_on(history: History, cli: Cli) -> None:
    """``tether init`` and ``auto_distill = true`` in the repository."""
    assert cli("init").code == 0
    (history.root / ".tether" / "config.toml").write_text("auto_distill = true\n")


def at(monkeypatch: pytest.MonkeyPatch, day: str) -> None:
    """Pin Tether's clock (this process and the CLI runs it starts) to a day of 2021."""
    monkeypatch.setenv("TETHER_NOW", f"2021-01-{day}T12:00:00+00:00")


def cli_start(cli: Cli, session: str) -> dict:
    """``tether session start`` of ``session``, parsed."""
    result = cli("session", "start", "--session", session, "--json")
    assert result.code == 0, result
    return result.json()


def hook_start(history: History, session: str) -> str:
    """The session-start hook of ``session``; what it tells the agent."""
    return hooks.run("session-start", json.dumps({"session_id": session, "cwd": str(history.root)}))


def summaries(history: History, cli: Cli) -> list[str]:
    """Summaries of the pending memories, oldest commit first."""
    return sorted(m["summary"] for m in cli("pending", "--json").json())


def test_sessions_of_other_origins_in_between_do_not_hide_commits(
    history: History, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn_on(history, cli)
    at(monkeypatch, "01")
    cli_start(cli, "cli-1")  # nothing before it: the mark is set at HEAD
    assert read_mark(history.store.conn) == history.head()
    history.commit("Never call flush() from the signal handler", date="2021-01-02T12:00:00Z")
    at(monkeypatch, "03")
    count_turn(history.store.conn, "mcp-1", origin="mcp")  # an MCP session, no start pass

    at(monkeypatch, "04")
    assert "1 memory distilled" in hook_start(history, "hook-1")
    assert summaries(history, cli) == ["Never call flush() from the signal handler"]
    assert read_mark(history.store.conn) == history.head()

    # an editor's session started beside the hook's reads nothing twice
    history.commit("Always close the upload handle", "src/util.py", date="2021-01-05T12:00:00Z")
    at(monkeypatch, "06")
    assert len(cli_start(cli, "lsp-beside")["distilled"]) == 1
    assert cli_start(cli, "hook-beside")["distilled"] == []
    assert summaries(history, cli) == [
        "Always close the upload handle",
        "Never call flush() from the signal handler",
    ]


def test_a_rewritten_history_falls_back_to_the_previous_sessions_start(
    history: History, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn_on(history, cli)
    at(monkeypatch, "01")
    cli_start(cli, "one")
    history.commit("Chose zstd because it decodes faster", date="2021-01-02T12:00:00Z")
    at(monkeypatch, "03")
    assert len(cli_start(cli, "two")["distilled"]) == 1
    read_up_to = read_mark(history.store.conn)

    git(history.root, "reset", "-q", "--hard", "HEAD~1")  # the commit read is gone from history
    history.commit("Never reorder the migrations", "src/util.py", date="2021-01-04T12:00:00Z")
    at(monkeypatch, "05")
    assert len(cli_start(cli, "three")["distilled"]) == 1  # the commits since "two" started
    assert "Never reorder the migrations" in summaries(history, cli)
    assert read_mark(history.store.conn) not in (None, read_up_to)

    with history.store.conn:  # a mark naming a commit that is not there at all
        history.store.conn.execute(
            "UPDATE lifecycle SET value = ? WHERE key = ?", ("f" * 40, MARK_KEY)
        )
    history.commit("Don't cache tokens across tenants", "docs/x.md", date="2021-01-06T12:00:00Z")
    at(monkeypatch, "07")
    assert len(cli_start(cli, "four")["distilled"]) == 1
    assert read_mark(history.store.conn) == history.head()


def test_a_claimed_range_is_not_claimed_again(history: History) -> None:
    history.store.remember(  # the index exists once the store has a memory
        history.store.prepare_memory(summary="seed", category="context", files=[])
    )
    conn = history.store.conn
    assert claim(conn, None, "a" * 40)
    assert not claim(conn, None, "b" * 40)  # a second run that also saw no mark
    assert claim(conn, "a" * 40, "c" * 40)
    assert not claim(conn, "a" * 40, "d" * 40)  # a second run that saw the old mark
    release(conn, "a" * 40, "c" * 40)  # the run that claimed failed: read it again next time
    assert read_mark(conn) == "a" * 40
    release(conn, None, "a" * 40)
    assert read_mark(conn) is None


def counting_command(tmp_path: Path) -> tuple[str, Path]:
    """A distill command that counts its calls in a file and proposes one gotcha per commit."""
    calls = tmp_path / "calls.txt"
    script = tmp_path / "count.py"
    script.write_text(
        "import json, pathlib, sys\n"
        "commit = json.load(sys.stdin)\n"
        f"with open({str(calls)!r}, 'a') as out:\n"
        "    out.write(commit['commit'] + '\\n')\n"
        "subject = commit['message'].splitlines()[0]\n"
        "print(json.dumps([{'category': 'gotcha', 'summary': 'Cmd: ' + subject}]))\n",
        encoding="utf-8",
    )
    return json.dumps([sys.executable, str(script)]), calls


def test_a_hook_leaves_the_command_to_callers_that_can_wait(
    history: History, cli: Cli, tmp_path: Path
) -> None:
    turn_on(history, cli)
    command, calls = counting_command(tmp_path)
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text(f"distill_command = {command}\n", encoding="utf-8")
    cli_start(cli, "first")
    mark = read_mark(history.store.conn)
    history.commit("Tidy the parser", "src/app.py")

    said = hook_start(history, "hooked")
    assert "1 commit waits for your distill_command" in said and "`tether distill`" in said
    assert not calls.exists()
    assert read_mark(history.store.conn) == mark  # left unread, not lost

    result = cli("distill", "--json")  # by hand: the unread commits, with the command
    assert result.code == 0, result
    assert "after" in result.json()["source"] and "the last read" in result.json()["source"]
    assert [w["summary"] for w in result.json()["written"]] == ["Cmd: Tidy the parser"]
    assert len(calls.read_text().splitlines()) == 1
    assert read_mark(history.store.conn) == history.head()
    assert cli_start(cli, "next")["distilled"] == []  # nothing left to read
    assert cli("distill", "--json").json()["commits"] == 0
    assert len(calls.read_text().splitlines()) == 1
