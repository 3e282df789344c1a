"""A proposal too large for a memory file is skipped alone, saying why and how to keep it; the
others of the run are written, a dry run says the same, and a session start says it too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult

from recall.memfiles import MAX_FILE_BYTES_ENV

from .conftest import History
from .test_cli import command_script, write_config, write_user_config

Cli = Callable[..., CliResult]

BIG = 200_000
"""Bytes of details: well over any memory file the default limit lets through."""

ANSWER = (
    "import json, sys\n"
    "json.load(sys.stdin)\n"
    "print(json.dumps([{'category': 'decision', 'summary': 'ok three'},\n"
    f"    {{'category': 'decision', 'summary': 'big', 'details': 'x' * {BIG}}}]))\n"
)


def _reports(cli: Cli, *args: str) -> dict:
    result = cli("distill", *args, "--json")
    assert result.code == 0, result
    return result.json()


def test_the_oversized_proposal_alone_is_skipped_and_a_dry_run_says_the_same(
    cli: Cli, history: History, tmp_path: Path
) -> None:
    write_user_config(f"distill_command = {command_script(tmp_path, ANSWER)}\n")
    start = history.head()
    sha = history.commit("Tidy the parser", "src/app.py")
    dry = _reports(cli, "--since", start, "--dry-run")
    real = _reports(cli, "--since", start)
    for report in (dry, real):
        assert [w["summary"] for w in report["written"]] == ["ok three"]
        (skipped,) = report["skipped"]
        assert skipped["summary"] == "big"
        assert "details is 200,000 bytes" in skipped["reason"]
        assert "over the limit" in skipped["reason"]
        assert "nothing written" not in skipped["reason"]  # "ok three" is
        assert (
            f"will not propose it again once another memory from commit {sha[:10]}"
            in (skipped["reason"])
        )
        assert "tether remember" in skipped["reason"]
    assert dry["skipped"] == real["skipped"]
    memory = cli("show", real["written"][0]["id"], "--json").json()
    assert memory["summary"] == "ok three" and memory["status"] == "pending"


def test_alone_in_its_commit_it_says_how_to_have_it_proposed_again(
    cli: Cli, history: History, tmp_path: Path
) -> None:
    body = ANSWER.replace("{'category': 'decision', 'summary': 'ok three'},\n", "")
    write_user_config(f"distill_command = {command_script(tmp_path, body)}\n")
    start = history.head()
    sha = history.commit("Tidy the parser", "src/app.py")
    result = cli("distill", "--since", start, "--json")
    assert result.code == 1  # nothing written
    (skipped,) = result.json()["skipped"]
    assert MAX_FILE_BYTES_ENV in skipped["reason"]
    assert f"tether distill --since {sha[:10]}~1" in skipped["reason"]
    # as it says: with a larger limit, the same commit gives it
    again = cli(
        "distill", "--since", f"{sha[:10]}~1", "--json", env={MAX_FILE_BYTES_ENV: str(2 * BIG)}
    )
    assert again.code == 0, again
    assert [w["summary"] for w in again.json()["written"]] == ["big"]


def test_a_session_start_writes_the_others_and_says_which_it_did_not(
    cli: Cli, history: History, tmp_path: Path
) -> None:
    assert cli("init").code == 0
    write_config(history, "auto_distill = true\n")
    write_user_config(f"distill_command = {command_script(tmp_path, ANSWER)}\n")
    assert cli("session", "start", "--session", "first").code == 0
    history.commit("Tidy the parser", "src/app.py")
    result = cli("session", "start", "--session", "second")
    assert result.code == 0, result
    assert "auto-distill skipped" not in result.stderr
    assert "auto-distill did not write 'big'" in result.stderr
    assert "over the limit" in result.stderr
    pending = cli("pending", "--json").json()
    assert [p["summary"] for p in pending] == ["ok three"]
