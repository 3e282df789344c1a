"""A line range anchor (``--anchor L3-L8``) names lines of the memory's file: one that cannot
name any (line 0, the first line after the last) is refused, naming the argument and the form
to give, and nothing is written; one reaching past the end of the file is kept (files change)
with a note saying so. The check is the engine's, so the CLI and the editor agree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult

from recall.anchors.write import bare_name_anchor
from recall.errors import BadInput


def memory_files(repo: Path) -> list[Path]:
    """The memory files of the project store."""
    return sorted((repo / ".tether" / "memories").glob("*.md"))


@pytest.mark.parametrize(
    ("anchor", "why"),
    [
        ("L0-L2", "lines are numbered from 1"),
        ("0", "lines are numbered from 1"),
        ("L5-L2", "its first line is after its last"),
        ("7:3", "its first line is after its last"),
    ],
)
def test_an_impossible_range_is_refused_naming_the_argument(
    repo: Path, anchor: str, why: str
) -> None:
    with pytest.raises(BadInput) as refused:
        bare_name_anchor(repo, ["src/util.py"], anchor, option="'anchor'")
    message = str(refused.value)
    assert message.startswith(f"'anchor' {anchor!r} is not a line range ({why})")
    assert "give it as L<first>-L<last>" in message


def test_a_range_within_the_file_is_kept_without_a_word(repo: Path) -> None:
    assert bare_name_anchor(repo, ["src/util.py"], "L1-L2") == (None, None)
    assert bare_name_anchor(repo, ["src/util.py"], "2") == (None, None)


def test_a_range_past_the_end_is_kept_with_a_note(repo: Path) -> None:
    pair, note = bare_name_anchor(repo, ["src/util.py"], "L900-L990")
    assert pair is None
    assert note is not None
    assert "--anchor 'L900-L990' reaches past the end of the file (src/util.py has 2 lines)" in note
    _, ending_after = bare_name_anchor(repo, ["src/util.py"], "L2-L3")
    assert ending_after is not None and "src/util.py has 2 lines" in ending_after


def test_cli_refuses_a_reversed_range_and_notes_one_past_the_end(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    before = memory_files(repo)
    done = cli("remember", "lines", "-c", "gotcha", "-f", "src/util.py", "--anchor", "L5-L2")
    assert done.code == 2
    assert "--anchor 'L5-L2' is not a line range (its first line is after its last)" in done.stderr
    assert memory_files(repo) == before
    done = cli("remember", "far", "-c", "gotcha", "-f", "src/util.py", "--anchor", "L900-L990")
    assert done.code == 0, done.stderr
    assert "reaches past the end of the file (src/util.py has 2 lines)" in done.stderr
    assert len(memory_files(repo)) == len(before) + 1
