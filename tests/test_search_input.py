"""``tether search`` given what a terminal may send: bytes of another encoding, an accent
typed as a combining mark, a limit far beyond any store."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult


def test_a_search_text_that_is_not_utf8_is_refused_naming_it(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    assert cli("remember", "cafe note", "-c", "gotcha", "-f", "src/app.py").code == 0
    done = subprocess.run(  # the byte 0xe9 as a Latin-1 terminal sends "é"
        [sys.executable, "-m", "recall", "search", os.fsdecode(b"caf\xe9")],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "the search text 'caf\\xe9' is not valid UTF-8" in done.stderr


def test_an_accent_typed_as_a_combining_mark_finds_the_composed_word(
    cli: Callable[..., CliResult],
) -> None:
    assert (
        cli("remember", "Les donn\u00e9es du cache", "-c", "context", "-f", "src/app.py").code == 0
    )
    for typed in ("donn\u00e9es", "donne\u0301es", "donnees"):
        found = cli("search", typed, "--json")
        assert found.code == 0, (typed, found.stderr)
        assert [m["summary"] for m in found.json()] == ["Les donn\u00e9es du cache"]


def test_a_limit_beyond_any_store_is_taken_as_no_limit(cli: Callable[..., CliResult]) -> None:
    assert cli("remember", "pool note", "-c", "gotcha", "-f", "src/app.py").code == 0
    done = cli("search", "pool", "--limit", "99999999999999999999", "--json")
    assert done.code == 0, done.stderr
    assert [m["summary"] for m in done.json()] == ["pool note"]
