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
