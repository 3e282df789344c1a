"""What ``tether distill`` makes of a commit message's words, read back through ``show``: an
abbreviation's period ends no sentence, and every trailing reference of a subject goes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import CliResult

from recall.distill_words import ABBREVIATIONS

from .conftest import History

Cli = Callable[..., CliResult]


def distilled(cli: Cli, history: History, message: str) -> dict:
    """The one memory ``tether distill`` writes for a commit with ``message``, as ``show``
    gives it."""
    start = history.head()
    history.commit(message, "src/app.py")
    result = cli("distill", "--since", start, "--json")
    assert result.code == 0, result
    (written,) = result.json()["written"]
    return cli("show", written["id"], "--json").json()


@pytest.mark.parametrize(
    "sentence",
    [
        "We chose SQLite over e.g. LevelDB because it survives a crash mid-write.",
        "We chose SQLite, i.e. One file, because backups copy it whole.",
        "We chose SQLite vs. Postgres because nothing runs beside it.",
        "We chose version 1.2 of foo.c because 1.3 Drops the flag.",
    ],
)
def test_the_details_are_the_whole_sentence_past_an_abbreviation(
    cli: Cli, history: History, sentence: str
) -> None:
    memory = distilled(cli, history, f"Switch storage backend\n\n{sentence} Later words.")
    assert memory["details"].strip() == sentence


def test_the_abbreviations_are_those_a_commit_writes_mid_sentence() -> None:
    assert {"e.g.", "i.e.", "etc.", "vs.", "cf."} <= set(ABBREVIATIONS)
    assert all(word == word.lower() and word.endswith(".") for word in ABBREVIATIONS)


def test_every_trailing_reference_of_the_subject_is_dropped(cli: Cli, history: History) -> None:
    memory = distilled(cli, history, "fix: don't break the API (#12) [ABC-1]")
    assert memory["summary"] == "Don't break the API"
