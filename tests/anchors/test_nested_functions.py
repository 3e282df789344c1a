"""A Python function's nested functions and classes are symbols of their own, named under it
(``outer.inner``): an anchor on one hashes its code, and ``tether check`` tells an edit of it
from an edit of the rest of the function around it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

from recall.genome.symbols.extract import TREE_SITTER, extract

SOURCE = (
    "def outer(x):\n"
    "    def inner(y):\n"
    "        return y + 1\n"
    "\n"
    "    total = inner(x)\n"
    "    return total\n"
    "\n"
    "\n"
    "class Cache:\n"
    "    def load(self):\n"
    "        class Entry:\n"
    "            def size(self):\n"
    "                return 1\n"
    "\n"
    "        return Entry()\n"
)


def test_nested_definitions_are_read_under_the_function_that_holds_them() -> None:
    found = extract("pkg/nest.py", SOURCE.encode())
    assert found.parser == TREE_SITTER, found.note
    assert [(d.name, d.start, d.end) for d in found.definitions] == [
        ("outer", 1, 6),
        ("outer.inner", 2, 3),
        ("Cache", 9, 15),
        ("Cache.load", 10, 15),
        ("Cache.load.Entry", 11, 13),
        ("Cache.load.Entry.size", 12, 13),
    ]


def test_other_languages_functions_are_still_not_entered() -> None:
    """Elsewhere a function's body holds callbacks and locals, not names a reader looks up."""
    js = b"function outer() {\n  function inner() {}\n  return inner;\n}\n"
    assert [d.name for d in extract("src/nest.js", js).definitions] == ["outer"]


@pytest.fixture
def run(tmp_path: Path, cli: Callable[..., CliResult]) -> Callable[..., CliResult]:
    repo = make_repo(tmp_path / "py-repo", {"pkg/nest.py": SOURCE, "README": "nest\n"})

    def runner(*args: str) -> CliResult:
        return cli(*args, cwd=repo)

    runner.repo = repo  # type: ignore[attr-defined]
    return runner


def test_an_anchor_on_a_nested_function_follows_its_code(run: Callable[..., CliResult]) -> None:
    repo: Path = run.repo  # type: ignore[attr-defined]
    done = run(
        "remember",
        "inner must stay pure",
        "-c",
        "decision",
        "--guard",
        "--anchor",
        "pkg/nest.py::outer.inner",
        "--json",
    )
    assert done.code == 0, done.stderr
    assert "kept without a body hash" not in done.stderr
    memory_id = done.json()["id"]
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memory")
    # the function around it edited, the nested one not: nothing to review for it
    (repo / "pkg/nest.py").write_text(SOURCE.replace("return total", "return total * 2"))
    around = run("check", "--json")
    assert around.code == 0, around.stderr
    assert around.json()["failures"] == []
    # the nested function edited: its guarded memory fails until confirmed
    (repo / "pkg/nest.py").write_text(SOURCE.replace("return y + 1", "return y + 2"))
    edited = run("check", "--json")
    assert edited.code == 1, edited.stderr
    [failure] = edited.json()["failures"]
    assert failure["id"] == memory_id
    assert "outer.inner" in failure["reason"]


def test_a_nested_functions_own_name_alone_finds_it_as_a_methods_does(
    run: Callable[..., CliResult],
) -> None:
    """``FILE::inner``, the one definition of that name in the file, is the nested function,
    its code hashed (it was kept unhashed: the file defined no such name)."""
    done = run(
        "remember", "inner adds one", "-c", "gotcha", "--anchor", "pkg/nest.py::inner", "--json"
    )
    assert done.code == 0, done.stderr
    assert "kept without a body hash" not in done.stderr
    shown = json.loads(run("show", done.json()["id"], "--json").stdout)
    [anchor] = shown["anchors"]
    assert anchor["body"]
