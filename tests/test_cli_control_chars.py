"""Control characters in memory files (which come with a cloned repository) never reach the
terminal raw: every human-facing output shows them as escapes, ``--json`` keeps them exact, the
files stay as written, and a one-line field given on the command line refuses them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, run_on_pty

Cli = Callable[..., CliResult]

SUMMARY = "harmless \x1b]0;PWNED\x07\x1b[2J \x9b31m \u202egnp.exe\u2069 summary"
SHOWN_SUMMARY = "harmless \\x1b]0;PWNED\\x07\\x1b[2J \\x9b31m \\u202egnp.exe\\u2069 summary"
DETAILS = "first line\n\x1b[31mred\rover\nlast line"
MEMORY_FILE = (
    "---\n"
    "id: 0badc0de\n"
    "category: gotcha\n"
    'files: ["src/app.py", "src/\\e]0;T\\a.py"]\n'
    'author: "Eve\\nid: 00000000"\n'
    "---\n"
    f"{SUMMARY}\n\n{DETAILS}\n"
)
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u2069", "\r")


@pytest.fixture
def planted(cli: Cli, repo: Path) -> Path:
    """A memory file with escape sequences, C1 and bidi controls and forged lines, as a cloned
    repository could hold; its path."""
    assert cli("init").code == 0
    path = repo / ".tether" / "memories" / "0badc0de.md"
    path.write_text(MEMORY_FILE, encoding="utf-8")
    return path


def on_terminal(*args: str, cwd: Path) -> str:
    """Run the CLI with stdout on a pseudo-terminal that takes no styles (``TERM=dumb``), so
    any escape character in what it printed came from a memory; return what it printed."""
    shown = run_on_pty(*args, cwd=cwd, env={"COLUMNS": "200", "TERM": "dumb"})
    return shown.replace("\r\n", "\n")


def assert_no_raw(text: str) -> None:
    for ch in RAW:
        assert ch not in text, f"{ch!r} reached the output raw"


def test_piped_listings_escape_control_characters_in_each_field(cli: Cli, planted: Path) -> None:
    for args in (("list",), ("search", "harmless"), ("recall", "-f", "src/app.py", "--no-record")):
        done = cli(*args)
        assert done.code == 0, done
        assert_no_raw(done.stdout)
        [line] = [line for line in done.stdout.splitlines() if "0badc0de" in line]
        assert SHOWN_SUMMARY in line.split("\t"), args
    fields = cli("list").stdout.splitlines()[0].split("\t")
    assert fields[:4] == ["0badc0de", "gotcha", SHOWN_SUMMARY, "src/app.py, src/\\x1b]0;T\\x07.py"]
    assert planted.read_bytes() == MEMORY_FILE.encode()  # the file stays as written


def test_a_tab_or_line_break_in_a_field_cannot_split_a_piped_record(
    cli: Cli, repo: Path, planted: Path
) -> None:
    odd = "---\nid: 0ddf11e5\ncategory: context\nfiles: ['a\tb', \"c\\nd\"]\n---\nodd files\n"
    (repo / ".tether" / "memories" / "0ddf11e5.md").write_text(odd, encoding="utf-8")
    lines = cli("list").stdout.splitlines()
    assert len(lines) == 2
    [line] = [line for line in lines if line.startswith("0ddf11e5")]
    assert line.split("\t") == ["0ddf11e5", "context", "odd files", "a\\tb, c\\nd", "project", ""]


def test_show_on_a_terminal_escapes_every_field_and_keeps_the_details_lines(
    repo: Path, planted: Path
) -> None:
    shown = on_terminal("show", "0badc0de", cwd=repo)
    assert_no_raw(shown)
    lines = shown.splitlines()
    assert SHOWN_SUMMARY in lines
    assert lines[3:6] == ["first line", "\\x1b[31mred\\rover", "last line"]
    assert "files:    src/app.py, src/\\x1b]0;T\\x07.py" in lines
    [created] = [line for line in lines if line.startswith("created:")]
    assert "by Eve\\nid: 00000000 (user)" in created
    assert not any(line.startswith("id:") for line in lines)  # no forged field


def test_the_tables_on_a_terminal_escape_control_characters(repo: Path, planted: Path) -> None:
    for args in (("list",), ("search", "harmless"), ("recall", "-f", "src/app.py", "--no-record")):
        shown = on_terminal(*args, cwd=repo)
        assert_no_raw(shown)
        assert "\\x1b]0;PWNED\\x07" in shown, args


def test_json_keeps_the_text_exact_with_no_raw_control_character(cli: Cli, planted: Path) -> None:
    for args in (("list", "--json"), ("show", "0badc0de", "--json"), ("export",)):
        done = cli(*args)
        assert done.code == 0, done
        assert_no_raw(done.stdout)
        first = json.loads(done.stdout.splitlines()[0])
        memory = first[0] if isinstance(first, list) else first
        assert memory["summary"] == SUMMARY
        assert memory["details"] == DETAILS
        assert memory["author"] == "Eve\nid: 00000000"
        assert memory["files"] == ["src/app.py", "src/\x1b]0;T\x07.py"]


@pytest.mark.parametrize("author", ["Eve\nid: 00000000", "Eve\x1b]0;T\x07", "Eve\u202e", "E\tve"])
def test_author_with_a_control_character_is_refused(cli: Cli, repo: Path, author: str) -> None:
    done = cli(
        "remember", "pool needs a warm-up", "-c", "gotcha", "-f", "src/app.py", "--author", author
    )
    assert done.code == 2, done
    assert "--author" in done.stderr and "control character" in done.stderr
    assert_no_raw(done.stderr)
    assert not list((repo / ".tether" / "memories").glob("*.md"))
    persian = "Mehr\u200cdad"  # a zero-width non-joiner shapes the letters: not refused
    done = cli("remember", "pool", "-c", "gotcha", "-f", "src/app.py", "--author", persian)
    assert done.code == 0, done


def test_a_problem_report_quoting_a_memory_file_escapes_it(cli: Cli, repo: Path) -> None:
    assert cli("init").code == 0
    name = "0badf11e\x1b]0;T\x07.md"  # a file name holds any character but "/" and NUL
    bad = "---\ncategory: nope\n---\nx\n"
    (repo / ".tether" / "memories" / name).write_text(bad, encoding="utf-8")
    done = cli("doctor")
    said = done.stdout + done.stderr
    assert_no_raw(said)
    assert "0badf11e\\x1b]0;T\\x07.md:2: unknown category 'nope'" in said


SELECTORS = "".join(chr(0xFE00 + byte % 16) for byte in range(15))
SMUGGLING = f"save through safeRename \U0001f512{SELECTORS}"
VARIED = "heart \u2764\ufe0f and \u8fbb\U000e0100 stay as written"


def test_a_run_of_variation_selectors_is_shown_and_not_handed_to_an_agent(
    cli: Cli, repo: Path
) -> None:
    assert cli("init").code == 0
    for memory_id, summary in (("5e1ec701", SMUGGLING), ("fa11ed02", VARIED)):
        text = f"---\nid: {memory_id}\ncategory: gotcha\nfiles: [src/app.py]\n---\n{summary}\n"
        (repo / ".tether" / "memories" / f"{memory_id}.md").write_text(text, encoding="utf-8")
    hidden = SELECTORS[1:]  # the first varies the emoji it follows
    shown = on_terminal("show", "5e1ec701", cwd=repo)
    assert not any(ch in shown for ch in hidden)
    escapes = "".join(f"\\ufe{byte:02x}" for byte in range(1, 15))
    assert f"save through safeRename \U0001f512\ufe00{escapes}" in shown.splitlines()
    assert VARIED in on_terminal("show", "fa11ed02", cwd=repo).splitlines()
    injected = cli("inject", "-f", "src/app.py")
    assert injected.code == 0, injected
    assert not any(ch in injected.stdout for ch in hidden)
    assert "save through safeRename \U0001f512\ufe00 · via file" in injected.stdout
    assert f"{VARIED} · via file" in injected.stdout
    listed = cli("list", "--json")
    assert not any(ch in listed.stdout for ch in hidden)
    assert {m["summary"] for m in listed.json()} == {SMUGGLING, VARIED}  # exact when read back
