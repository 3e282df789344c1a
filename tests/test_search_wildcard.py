"""``tether search``: a ``*`` after a word reads "words starting with", so ``inter*`` finds at
least what ``inter`` finds; a ``*`` anywhere else is no syntax and never an FTS5 error."""

from __future__ import annotations

import pytest
from test_cli import Cli, add, ok


def found(cli: Cli, query: str) -> set[str]:
    """The ids ``tether search QUERY`` finds (none when it finds nothing)."""
    result = cli("search", query, "--json")
    assert result.code in (0, 1), result
    assert "Traceback" not in result.stderr and "fts5" not in result.stderr.lower(), result
    return {m["id"] for m in result.json()}


def test_a_star_after_a_partial_word_finds_what_the_word_alone_finds(cli: Cli) -> None:
    save = add(cli, "save must go through safeRename", "-f", "src/app.py")
    interop = add(cli, "interop needs the Windows shim", "-f", "src/app.py")
    for word, memory in [("safe", save), ("inter", interop), ("Win", interop), ("save", save)]:
        assert found(cli, word) == {memory}, word
        assert found(cli, f"{word}*") == {memory}, f"{word}*"
    # a prefix of one or two letters, too short for the substring index, is still a prefix
    assert found(cli, "sa*") == {save}
    assert found(cli, "in*") == {interop}
    assert found(cli, "Win** shim") == {interop}  # every word still required
    assert found(cli, "Win* save") == set()


def test_a_starred_word_is_found_in_the_order_of_best_matches(cli: Cli) -> None:
    add(cli, "interop needs the Windows shim", "-f", "src/app.py")
    listed = ok(cli("search", "inter*")).stdout.splitlines()
    assert [line.split("\t")[2] for line in listed] == ["interop needs the Windows shim"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("*", False),  # no word: no search, as punctuation alone
        ("**", False),
        ("*Rename", True),  # before a word: the substring index finds the word's end
        ("*rename*", True),
        ("saf*Rename", False),  # inside a word: the character itself, which no memory holds
        ('"safe*"', True),  # a quote around it changes nothing
        ('"must go*"', True),
        ("safe*Rename*", False),
        ("* safe", True),
        ("safe *", True),
        ("NEAR(safe*)", False),  # FTS5 syntax typed in is text, never an error
        ('safe* OR "', False),
    ],
)
def test_a_star_elsewhere_is_never_an_error(cli: Cli, query: str, expected: bool) -> None:
    save = add(cli, "save must go through safeRename", "-f", "src/app.py")
    assert found(cli, query) == ({save} if expected else set()), query


def test_a_starred_accented_word_is_a_prefix_as_the_index_folds_it(cli: Cli) -> None:
    cafes = add(cli, "Cafés close the pool early", "-f", "src/app.py")
    assert found(cli, "café*") == {cafes} == found(cli, "CAFE*")
