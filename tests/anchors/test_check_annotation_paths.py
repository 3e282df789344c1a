"""``tether check --format github`` names each file as it is in its annotation's ``file``
property, with GitHub's own escapes alone (``%``, CR, LF, ``:`` and ``,``): a tab stays a tab.
A character that would act on the log viewer (an ESC, a bidi override) is written as its
escape, there and in the message, and the path is named on stderr; never given raw."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, git, make_repo

from recall.cli.cmd_check import FILE_PROPERTY_KEEPS

Cli = Callable[..., CliResult]

TAB = "a\tb.py"
ESC = "e\x1b[31mred.py"
SPECIAL = "c:o,m%.py"
NEWLINE = "n\nl.py"


def _changed(tmp_path: Path, cli: Cli, *names: str) -> Path:
    """A repository whose ``names`` each have a memory, committed, then an edit each."""
    repo = make_repo(tmp_path / "named", {name: "x\n" for name in names})
    for name in names:
        done = cli("remember", f"memory of {name.encode()!r}", "-c", "gotcha", "-f", name, cwd=repo)
        assert done.code == 0, done.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memories")
    for name in names:
        (repo / name).write_text("x\ny\n", encoding="utf-8")
    return repo


def _file_property(stdout: str) -> list[str]:
    return [line.split("file=", 1)[1].split(",line=", 1)[0] for line in stdout.splitlines()]


def test_the_tab_a_path_holds_is_a_tab_in_its_annotation(tmp_path: Path, cli: Cli) -> None:
    repo = _changed(tmp_path, cli, TAB, SPECIAL, NEWLINE)
    done = cli("check", "--format", "github", cwd=repo)
    assert done.code == 0, done.stderr
    assert sorted(_file_property(done.stdout)) == ["a\tb.py", "c%3Ao%2Cm%25.py", "n%0Al.py"]
    assert done.stderr == ""


def test_an_escape_in_a_path_never_reaches_the_log(tmp_path: Path, cli: Cli) -> None:
    repo = _changed(tmp_path, cli, ESC)
    done = cli("check", "--format", "github", cwd=repo)
    assert done.code == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    assert _file_property(done.stdout) == ["e\\x1b[31mred.py"]
    assert "(the change edits e\\x1b[31mred.py)" in done.stdout
    assert done.stderr == (
        "tether: e\\x1b[31mred.py: its name holds a character a log must not be given as it "
        "is, so its annotations name it with that character escaped, and GitHub may place "
        "them on no file\n"
    )


def test_the_file_property_keeps_the_tab_alone() -> None:
    assert FILE_PROPERTY_KEEPS == "\t"
