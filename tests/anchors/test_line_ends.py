"""A file written with carriage returns alone (old Mac line ends), with ``\\r\\n`` or with both
mixed is read on the lines an editor counts (LSP: ``\\r\\n``, ``\\r`` and ``\\n`` each end one):
``tether show`` places its anchored symbols there, and ``tether check`` reviews an edit there,
as for the same file written with ``\\n``."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

from recall.genome.symbols.extract import extract
from recall.line_ends import lone_cr_as_lf
from tests.anchors.test_guard_scope import asks, edit, pre_edit

PYTHON = [
    "import os",
    "# a comment: tree-sitter's runs to the next \\n",
    "",
    "",
    "@cache",
    "def load(path):",
    "    return open(path).read()",
    "",
    "",
    "def save(path, data):",
    "    os.replace(path, data)",
]
C = [
    "#define LIMIT 1",
    "#define OTHER 2",
    "// a comment",
    "int route_add(int arg)",
    "{",
    "    return arg;",
    "}",
    "",
    "int route_del(int arg)",
    "{",
    "    return -arg;",
    "}",
]
# 1-based (first, last) lines, as an editor numbers them
WHERE = {
    "src/store.py::load": (6, 7),
    "src/store.py::save": (10, 11),
    "ip/route.c::route_del": (9, 12),
}
ENDS = {"cr": ["\r"], "crlf": ["\r\n"], "mixed": ["\r", "\r\n", "\n"]}


def written(lines: list[str], ends: str) -> str:
    """``lines`` each ended by the next of the line ends ``ends`` names, in turn."""
    cycle = itertools.cycle(ENDS[ends])
    return "".join(line + next(cycle) for line in lines)


@pytest.fixture(params=sorted(ENDS))
def ends(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def repo(tmp_path: Path, ends: str) -> Path:
    """The repository the ``cli`` fixture runs in: the two files, written with ``ends``."""
    return make_repo(
        tmp_path / "ends",
        {"src/store.py": written(PYTHON, ends), "ip/route.c": written(C, ends)},
    )


def remember(cli: Callable[..., CliResult], anchor: str) -> str:
    done = cli("remember", f"{anchor} has a gotcha", "-c", "gotcha", "--anchor", anchor, "--json")
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def test_the_definitions_are_those_of_the_file_written_with_line_feeds(ends: str) -> None:
    for path, lines in (("src/store.py", PYTHON), ("ip/route.c", C)):
        plain = extract(path, "".join(line + "\n" for line in lines).encode())
        other = extract(path, written(lines, ends).encode())
        assert (other.parser, other.syntax_errors) == (plain.parser, False)
        assert other.definitions == plain.definitions


def test_show_places_an_anchored_symbol_on_the_editor_s_lines(
    cli: Callable[..., CliResult],
) -> None:
    for anchor, (first, last) in WHERE.items():
        memory = remember(cli, anchor)
        [state] = cli("show", memory, "--json").json()["anchor_states"]
        assert (state["state"], state["lines"]) == ("current", [first, last])
        path = anchor.partition("::")[0]
        assert f"current at {path}:{first}-{last}" in cli("show", memory).stdout


def test_check_reviews_an_edit_on_the_editor_s_line(
    repo: Path, cli: Callable[..., CliResult], ends: str
) -> None:
    save = remember(cli, "src/store.py::save")
    remember(cli, "src/store.py::load")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memories")
    edited = [line.replace("os.replace(path, data)", "os.rename(path, data)") for line in PYTHON]
    (repo / "src/store.py").write_bytes(written(edited, ends).encode())
    done = cli("check", "--json")
    assert done.code == 0, done.stderr
    found = done.json()
    # save's memory, on save's first line; load's memory, on code the edit leaves, not at all
    assert [(f["id"], f["line"]) for f in found["review"]] == [
        (save, WHERE["src/store.py::save"][0])
    ]
    assert found["failures"] == []


def test_a_guard_asks_about_the_edits_of_its_symbol_only(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    done = cli(
        "remember",
        "save replaces atomically",
        "-c",
        "decision",
        "--guard",
        "--json",
        "--anchor",
        "src/store.py::save",
    )
    assert done.code == 0, done.stderr

    def asked(old: str) -> bool:
        return asks(pre_edit(cli, repo, "src/store.py", "Edit", **edit(old)))

    assert asked("os.replace(path, data)")
    assert asked("def save(path, data):\n    os")  # the agent's own line ends
    # load's first line (its last is the line before save: within the guard's reach)
    assert not asked("def load(path):")


def test_a_text_without_a_lone_carriage_return_is_given_back_as_it_is() -> None:
    for text in ("a\nb\n", "a\r\nb\r\n", ""):
        assert lone_cr_as_lf(text) is text
        assert lone_cr_as_lf(text.encode()) == text.encode()
    assert lone_cr_as_lf("a\rb\r\nc\r") == "a\nb\r\nc\n"
    assert lone_cr_as_lf(b"\r\r\n") == b"\n\r\n"
