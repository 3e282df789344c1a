"""Distill as a new user meets it: a dry run over a long range reads as a summary, code names
keep their spelling, and feature commits are not proposed as decisions."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import CliResult

from recall import distill_words
from recall.cli.cmd_distill import skipped_lines
from recall.distill import Commit, Outcome, clean_subject, heuristic

from .conftest import History

Cli = Callable[..., CliResult]


def test_a_dry_run_over_many_commits_says_the_cap_once(cli: Cli, history: History) -> None:
    start = history.head()
    for number in range(7):
        history.commit(f"Never reuse buffer {number} after free", f"src/f{number}.py")
    result = cli("distill", "--dry-run", "--since", start)
    assert result.code == 0, result
    lines = result.stdout.splitlines()
    over = [line for line in lines if "over the cap" in line]
    assert len(over) == 1, result.stdout
    assert over[0].startswith("  skipped 4 commits (") and over[0].endswith(
        f"over the cap of {distill_words.MAX_PER_SESSION} memories per run "
        "(the distill_max setting)"
    )
    assert len([line for line in lines if "Never reuse buffer" in line]) == 3
    as_json = cli("distill", "--dry-run", "--since", start, "--json").json()
    assert len(as_json["skipped"]) == 4  # every commit stays in the machine output


def test_skipped_lines_keep_single_reasons_and_proposals_apart() -> None:
    outcomes = [
        Outcome("aaaa", "skipped", "no durable knowledge found in its message"),
        Outcome("bbbb", "skipped", "already known as 1234abcd (active)", None, "gotcha", "X"),
        Outcome("cccc", "skipped", "over the cap of 3 per session"),
        Outcome("dddd", "skipped", "over the cap of 3 per session"),
    ]
    assert skipped_lines(outcomes) == [
        "  skipped aaaa: no durable knowledge found in its message",
        "  skipped bbbb: 'X': already known as 1234abcd (active)",
        "  skipped 2 commits (cccc … dddd): over the cap of 3 per session",
    ]


@pytest.mark.parametrize(
    ("subject", "summary"),
    [
        (
            "iplink: bond_slave: never reset actor_port_prio",
            "iplink: bond_slave: never reset actor_port_prio",
        ),
        ("bond_slave: never reset the port", "bond_slave: never reset the port"),
        ("tc/police: must not drop the burst", "tc/police: must not drop the burst"),
        (
            "man8: ip-sr: passphrase must be high-entropy.",
            "man8: ip-sr: passphrase must be high-entropy",
        ),
        ("ip: do not print stray prefixes", "ip: do not print stray prefixes"),
        ("getUser() must be awaited", "getUser() must be awaited"),
        ("never log request bodies", "Never log request bodies"),
        ("fix: never log request bodies", "Never log request bodies"),
    ],
)
def test_code_names_are_never_capitalised(subject: str, summary: str) -> None:
    assert clean_subject(subject) == summary


def commit(message: str) -> Commit:
    """A commit of ``message`` on one file."""
    return Commit("a" * 40, "Dev", message, ("ip/iplink.c",))


@pytest.mark.parametrize(
    "message",
    [
        "iplink: bond_slave: add support for actor_port_prio\n\nNeeded because LACP wants it.",
        "feat(api): add a batch endpoint so that clients save round trips",
        "Add port mask support, because users asked for it",
        "tc: f_flower: Support matching on tunnel metadata rather than headers",
    ],
)
def test_a_feature_commit_is_never_a_decision(message: str) -> None:
    found = heuristic(commit(message))
    assert found is None or found.category != "decision"


def test_a_warning_in_a_feature_commit_is_still_a_gotcha() -> None:
    found = heuristic(commit("ss: add delack timers; never print them in raw mode"))
    assert found is not None and found.category == "gotcha"
    decision = heuristic(commit("ip/netns: avoid redundant mounts because they leak"))
    assert decision is not None and decision.category == "decision"


def test_pending_takes_a_limit(cli: Cli, history: History) -> None:
    start = history.head()
    history.commit("Never call flush() from the signal handler", "src/app.py")
    history.commit("Pick zstd because it decodes faster", "src/util.py")
    assert cli("distill", "--since", start).code == 0
    assert len(cli("pending", "--json").json()) == 2
    assert len(cli("pending", "--limit", "1", "--json").json()) == 1
    assert len(cli("pending", "--limit", "1").stdout.splitlines()) == 1
    assert cli("pending", "--limit", "0").code == 2


@pytest.mark.parametrize(
    ("subject", "summary"),
    [
        ("don't call close twice on the pool", "Don't call close twice on the pool"),
        ("fix(db): don't reuse a cursor across threads", "Don't reuse a cursor across threads"),
        ("can’t retry a sent request", "Can’t retry a sent request"),  # a typographic apostrophe
        ("it's the caller who closes", "It's the caller who closes"),
        ("won't, as the lock is held", "Won't, as the lock is held"),
        ("o'reilly's parser chokes on tabs", "O'reilly's parser chokes on tabs"),
    ],
)
def test_a_first_word_with_an_apostrophe_is_a_plain_word(subject: str, summary: str) -> None:
    assert clean_subject(subject) == summary


@pytest.mark.parametrize(
    "subject",
    ["x' must stay primed", "don'_t touch the flag", "can't: keep as written", "it's.name stays"],
)
def test_an_apostrophe_does_not_make_a_code_name_plain(subject: str) -> None:
    assert clean_subject(subject) == subject
