"""A new memory's text holds no character that is not text: a NUL in a memory file makes git
treat it as binary (its diff hidden from the review of a pull request), and an ESC, a bidi
override or a line separator in a summary acts on a terminal or hides text. The summary is
refused any control, format or separator character, the details any C0 control but a tab and
line breaks; the refusal names the field, the character and where it is, and nothing is
written. The check is the store's own, so the CLI, the MCP server and the editor all refuse."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, remember

from recall.errors import BadInput
from recall.store import MemoryStore
from recall.text_checks import DETAILS_CONTROLS_KEPT, SUMMARY_CONTROLS_KEPT


def memory_files(repo: Path) -> list[Path]:
    """The memory files of the project store."""
    return sorted((repo / ".tether" / "memories").glob("*.md"))


@pytest.mark.parametrize(
    ("summary", "said"),
    [
        ("nul \x00 byte", "(it holds \\x00 at character 5)"),
        ("esc \x1b[31m red", "(it holds \\x1b at character 5)"),
        ("c1 \x9b csi", "(it holds \\x9b at character 4)"),
        ("rtl \u202e txt", "(it holds \\u202e at character 5)"),
        ("line\u2028sep", "(it holds \\u2028 at character 5)"),
        ("para\u2029sep", "(it holds \\u2029 at character 5)"),
        ("a\x07b\x07c", "(it holds \\x07 at character 2 and 1 other place)"),
        ("run a\ufe0f\ufe0e", "(it holds \\ufe0f at character 6, \\ufe0e at character 7)"),
        ("filler \u3164 x", "(it holds \\u3164 at character 8)"),
    ],
)
def test_store_refuses_a_summary_with_a_control_character(
    store: MemoryStore, summary: str, said: str
) -> None:
    with pytest.raises(BadInput) as refused:
        remember(store, summary)
    assert str(refused.value).startswith("summary must be one line of text without control")
    assert said in str(refused.value)


def test_store_refuses_details_with_a_nul_naming_its_line(store: MemoryStore) -> None:
    with pytest.raises(BadInput) as refused:
        remember(store, "binary details", details="first\n\tsecond \x00 here")
    assert str(refused.value).startswith(
        "details hold the control character \\x00 on line 2, character 9; remove it"
    )


def test_details_keep_tabs_and_line_breaks(store: MemoryStore) -> None:
    details = "a\ttab\r\nthen crlf\nthen lf"
    memory_id = remember(store, "text with tabs", details=details)
    assert store.get(memory_id).details == details


def test_the_controls_details_may_hold_are_a_tab_and_line_breaks() -> None:
    assert DETAILS_CONTROLS_KEPT == "\t\n\r"


def test_the_one_control_a_summary_may_hold_is_a_tab(store: MemoryStore) -> None:
    assert SUMMARY_CONTROLS_KEPT == "\t"
    assert store.get(remember(store, "tab\tinside")).summary == "tab\tinside"


def test_summary_keeps_joiners_and_any_script(store: MemoryStore) -> None:
    summary = "日本語 and emoji \U0001f468\u200d\U0001f4bb \u2764\ufe0f and ZWNJ \u200c"
    assert store.get(remember(store, summary)).summary == summary


def test_cli_refuses_an_esc_in_the_summary_and_a_bell_in_details(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    done = cli("remember", "paint \x1b]0;title\x07 it", "-c", "gotcha", "-f", "src/app.py")
    assert done.code == 2
    assert "summary must be one line of text without control characters" in done.stderr
    assert "\\x1b at character 7, \\x07 at character 16" in done.stderr
    done = cli(
        "remember", "fine", "-c", "gotcha", "-f", "src/app.py", "--details", "-", stdin="x\x07y\n"
    )
    assert done.code == 2
    assert "details hold the control character \\x07 on line 1, character 2" in done.stderr
    assert memory_files(repo) == []
