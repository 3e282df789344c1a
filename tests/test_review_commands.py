"""Reviewing memories from the command line: pending ones are confirmed through ``tether
pending``, decisions are checked on resolved ids, a failed cleanup run records no pass, and a
teammate's confirm counts. The real CLI in a subprocess, a real repository."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git

from recall import frontmatter
from recall.lifecycle.cleanup import CleanupStatus
from recall.lifecycle.session_start import SessionStart, hint_lines

Cli = Callable[..., CliResult]


def commit(repo: Path, message: str) -> None:
    """Append to src/app.py and commit it with ``message``."""
    with (repo / "src" / "app.py").open("a", encoding="utf-8") as handle:
        handle.write(f"# {message}\n")
    git(repo, "commit", "-q", "-am", message)


@pytest.fixture
def proposal(cli: Cli, repo: Path) -> str:
    """The id of one pending memory distilled from a commit."""
    assert cli("init").code == 0
    start = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, "never call f twice")
    report = cli("distill", "--since", start, "--json")
    assert report.code == 0, report
    (written,) = report.json()["written"]
    return written["id"]


def status_of(cli: Cli, memory_id: str) -> str:
    """The status ``tether show`` gives."""
    return cli("show", memory_id, "--json").json()["status"]


def last_pass(cli: Cli) -> str | None:
    """When the last cleanup pass was recorded, as ``cleanup --json`` says."""
    return json.loads(cli("cleanup", "--json").stdout)["last_pass"]


@pytest.mark.parametrize(
    "args",
    [
        ("confirm", "{id}"),
        ("cleanup", "--confirm", "{id}"),
        ("cleanup", "--keep", "{id}"),
        ("cleanup", "--archive", "{id}"),
        ("archive", "{id}"),
        ("restore", "{id}"),
        ("supersede", "{id}", "never call f more than once"),
    ],
)
def test_reviewing_a_pending_memory_outside_pending_is_refused_naming_pending_confirm(
    cli: Cli, proposal: str, args: tuple[str, ...]
) -> None:
    result = cli(*(arg.format(id=proposal) for arg in args))
    assert result.code == 2, result
    assert f"tether pending confirm {proposal}" in result.stderr
    assert status_of(cli, proposal) == "pending"
    if args[0] == "cleanup":
        assert last_pass(cli) is None


@pytest.mark.parametrize("args", [("delete", "{id}"), ("cleanup", "--delete", "{id}")])
def test_deleting_a_pending_memory_drops_it_and_restore_brings_it_back_to_pending(
    cli: Cli, proposal: str, args: tuple[str, ...]
) -> None:
    assert cli(*(arg.format(id=proposal) for arg in args)).code == 0
    assert status_of(cli, proposal) == "deleted"
    restored = cli("restore", proposal)
    assert restored.code == 0, restored
    assert "pending" in restored.stdout
    assert status_of(cli, proposal) == "pending"


def test_a_dropped_proposal_restored_is_pending_again(cli: Cli, proposal: str) -> None:
    assert cli("pending", "drop", proposal).code == 0
    restored = cli("restore", proposal)
    assert restored.code == 0, restored
    assert f"tether pending confirm {proposal}" in restored.stdout
    assert status_of(cli, proposal) == "pending"
    assert cli("pending", "confirm", proposal).code == 0
    assert cli("delete", proposal).code == 0
    assert cli("restore", proposal).code == 0
    assert status_of(cli, proposal) == "active"


def test_a_proposal_named_twice_is_confirmed_once(cli: Cli, proposal: str) -> None:
    done = cli("pending", "confirm", proposal[:4], proposal, "--json")
    assert done.code == 0, done
    assert [item["id"] for item in done.json()["confirm"]] == [proposal]
    assert status_of(cli, proposal) == "active"


def test_an_id_given_to_two_decisions_is_refused_as_a_prefix_too(cli: Cli) -> None:
    assert cli("init").code == 0
    written = cli("remember", "keep the cache warm", "-c", "gotcha", "--json").json()
    full = written["id"]
    result = cli("cleanup", "--archive", full[:4], "--keep", full)
    assert result.code == 2, result
    assert "--archive" in result.stderr and "--keep" in result.stderr
    assert status_of(cli, full) == "active"
    assert last_pass(cli) is None


def test_a_failed_cleanup_run_records_no_pass(cli: Cli) -> None:
    assert cli("init").code == 0
    memory_id = cli("remember", "keep the cache warm", "-c", "gotcha", "--json").json()["id"]
    assert cli("delete", memory_id).code == 0
    result = cli("cleanup", "--keep", memory_id)
    assert result.code == 2, result
    assert last_pass(cli) is None


def test_session_start_in_a_repository_never_set_up_creates_the_store(cli: Cli, repo: Path) -> None:
    started = cli("session", "start", "--session", "z1")
    assert started.code == 0, started
    assert "as `tether init` does" in started.stderr
    assert (repo / ".tether" / "memories").is_dir()
    commit(repo, "never call f twice")
    distilled = cli("distill", "--session", "z1", "--json")
    assert distilled.code == 0, distilled


def test_a_memory_a_teammate_confirmed_lately_is_not_idle(cli: Cli, repo: Path) -> None:
    assert cli("init").code == 0
    memory_id = cli(
        "remember", "keep the cache warm", "-c", "gotcha", "--file", "src/app.py", "--json"
    ).json()["id"]
    later = {"TETHER_NOW": "2027-08-01T00:00:00+00:00"}
    listed = cli("cleanup", "--json", env=later).json()
    assert [c["id"] for c in listed["candidates"]] == [memory_id]  # idle: nobody touched it
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    text = path.read_text(encoding="utf-8")
    fields = frontmatter.parse(text, path).fields
    assert "confirmed" not in fields
    path.write_text(
        text.replace("\nstatus:", "\nconfirmed: '2027-07-30T00:00:00+00:00'\nstatus:", 1),
        encoding="utf-8",
    )
    assert frontmatter.parse(path.read_text(encoding="utf-8"), path).fields["confirmed"]
    listed = cli("cleanup", "--json", env=later)
    assert listed.json()["candidates"] == [], listed


def test_one_proposal_awaits_review_in_the_singular() -> None:
    quiet = CleanupStatus(0, 0, None, False, None)
    one = hint_lines(SessionStart("s", True, quiet, distilled=["abcd1234"]))
    two = hint_lines(SessionStart("s", True, quiet, distilled=["abcd1234", "bcde2345"]))
    assert "1 memory distilled from your recent commits awaits review" in one[0]
    assert "2 memories distilled from your recent commits await review" in two[0]
