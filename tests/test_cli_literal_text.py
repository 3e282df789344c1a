"""What a person wrote in a memory is printed as written: an emoji code (``:smile:``, the
``:id:`` inside ``user:id:session``) stays text and square brackets are never read as styles,
piped or on a terminal, in a card, a table and the stacked layout of a narrow terminal."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, pty_run

Cli = Callable[..., CliResult]

SUMMARY = "cache keys are user:id:session, never [bold]user:session[/] :smile:"
DETAILS = "see [red]the notes[/] [/] :thumbs_up: before :id: changes"
AUTHOR = "[italic]Eve[/] :wave:"
MEMORY_FILE = (
    "---\n"
    "id: 5eed0001\n"
    "category: gotcha\n"
    "files: [src/app.py, 'src/[b]x[/b]:id:.py']\n"
    f"author: '{AUTHOR}'\n"
    "---\n"
    f"{SUMMARY}\n\n{DETAILS}\n"
)
EMOJI = ("\U0001f194", "\U0001f604", "\U0001f44d", "\U0001f44b")  # 🆔 😄 👍 👋


@pytest.fixture
def planted(cli: Cli, repo: Path) -> Path:
    """A memory file whose text holds emoji codes and rich markup; the repository's root."""
    assert cli("init").code == 0
    (repo / ".tether" / "memories" / "5eed0001.md").write_text(MEMORY_FILE, encoding="utf-8")
    return repo


def on_terminal(*args: str, cwd: Path, columns: int) -> str:
    """What the CLI printed on a terminal ``columns`` wide that takes no styles."""
    code, out, err = pty_run(*args, cwd=cwd, env={"TERM": "dumb"}, columns=columns)
    assert code == 0, err
    return out.replace("\r\n", "\n")


def assert_as_written(text: str) -> None:
    for emoji in EMOJI:
        assert emoji not in text, f"an emoji code became {emoji}:\n{text}"


def test_show_piped_prints_emoji_codes_and_brackets_as_written(cli: Cli, planted: Path) -> None:
    shown = cli("show", "5eed0001")
    assert shown.code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[1] == SUMMARY
    assert DETAILS in lines
    assert "files:    src/app.py, src/[b]x[/b]:id:.py" in lines
    assert any(f"by {AUTHOR} (user)" in line for line in lines)
    assert_as_written(shown.stdout)


@pytest.mark.parametrize("columns", [200, 60])  # a table, and the narrow terminal's blocks
def test_listings_on_a_terminal_print_emoji_codes_and_brackets_as_written(
    planted: Path, columns: int
) -> None:
    for args in (("list",), ("search", "cache"), ("recall", "-f", "src/app.py", "--no-record")):
        shown = on_terminal(*args, cwd=planted, columns=columns)
        assert_as_written(shown)
        assert "user:id:session" in shown, (args, shown)
        assert "[bold]" in shown and ":smile:" in shown, (args, shown)


def test_show_on_a_terminal_prints_emoji_codes_and_brackets_as_written(planted: Path) -> None:
    shown = on_terminal("show", "5eed0001", cwd=planted, columns=200)
    assert_as_written(shown)
    assert SUMMARY in shown.splitlines()
    assert DETAILS in shown.splitlines()
