"""``tether distill --since``: what it reads, what it refuses, and what a plain ``tether
distill`` reads after it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import CliResult

from .conftest import History

Cli = Callable[..., CliResult]


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_since_is_refused_naming_it_not_read_as_the_whole_history(
    cli: Cli, history: History, value: str
) -> None:
    history.commit("Never call flush() from the signal handler", "src/app.py")
    before = history.memory_files() if history.store.folder.path.exists() else set()
    result = cli("distill", "--since", value)
    assert result.code == 2, result
    assert result.stdout == ""
    assert "--since" in result.stderr and "is empty" in result.stderr
    assert "HEAD~5" in result.stderr  # what to give instead
    after = history.memory_files() if history.store.folder.path.exists() else set()
    assert after == before


def _summaries(result: CliResult) -> list[str]:
    assert result.code in (0, 1), result
    return [item["summary"] for item in result.json()["written"]]


def test_a_plain_distill_reads_on_from_where_a_since_run_stopped(
    cli: Cli, history: History
) -> None:
    start = history.head()
    history.commit("Never call flush() from the signal handler", "src/app.py")
    written = _summaries(cli("distill", "--since", start, "--json"))
    assert written == ["Never call flush() from the signal handler"]
    again = cli("distill", "--json")  # nothing new: read, nothing written, no error
    assert again.code == 1, again
    assert again.json()["commits"] == 0
    history.commit("Always close the upload handle", "src/util.py")
    assert _summaries(cli("distill", "--json")) == ["Always close the upload handle"]


def test_a_since_run_after_the_mark_leaves_it_so_nothing_before_goes_unread(
    cli: Cli, history: History
) -> None:
    start = history.head()
    history.commit("Never call flush() from the signal handler", "src/app.py")
    cli("distill", "--since", start, "--json")  # marks where it stopped
    skipped_over = history.commit("Always close the upload handle", "src/util.py")
    history.commit("Don't cache tokens across tenants", "src/auth.py")
    assert _summaries(cli("distill", "--since", skipped_over, "--json")) == [
        "Don't cache tokens across tenants"
    ]
    assert _summaries(cli("distill", "--json")) == ["Always close the upload handle"]


def test_a_dry_run_marks_nothing_and_the_refusal_says_what_to_pass(
    cli: Cli, history: History
) -> None:
    assert cli("init").code == 0  # a store in place, which a real run would mark
    start = history.head()
    history.commit("Never call flush() from the signal handler", "src/app.py")
    assert cli("distill", "--since", start, "--dry-run").code == 0
    result = cli("distill")
    assert result.code == 2, result
    assert "--since COMMIT" in result.stderr and "nothing was distilled" not in result.stderr
