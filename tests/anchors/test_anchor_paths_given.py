"""An ``--anchor PATH::NAME`` path is read as a ``--file`` beside it is: from the folder the
command runs in, or absolute, or a ``file://`` URI inside the repository; a path outside it is
refused naming ``--anchor``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, make_repo

STORE_PY = "def save():\n    pass\n\n\ndef load():\n    pass\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", {"src/store.py": STORE_PY})
    (root / "src" / "deep").mkdir()
    return root


def anchored(cli: Callable[..., CliResult], anchor: str, cwd: Path) -> dict:
    done = cli(
        "remember", f"note on {anchor}", "-c", "gotcha", "--anchor", anchor, "--json", cwd=cwd
    )
    assert done.code == 0, done.stderr
    shown = cli("show", done.json()["id"], "--json").json()
    return {"files": shown["files"], "anchors": [s["symbol"] for s in shown["anchor_states"]]}


@pytest.mark.parametrize(
    ("anchor", "where"),
    [
        ("{root}/src/store.py::save", "."),
        ("file://{root}/src/store.py::save", "."),
        ("../src/store.py::save", "src"),
        ("store.py::save", "src"),
        ("../store.py::save", "src/deep"),
    ],
)
def test_an_anchor_path_is_read_as_a_file_path_is(
    repo: Path, cli: Callable[..., CliResult], anchor: str, where: str
) -> None:
    given = anchor.format(root=repo)
    assert anchored(cli, given, repo / where) == {
        "files": ["src/store.py"],
        "anchors": ["src/store.py::save"],
    }


def test_a_root_relative_anchor_from_a_subfolder_is_refused_as_a_file_would_be(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    refused = cli(
        "remember", "n", "-c", "gotcha", "--anchor", "src/store.py::load", cwd=repo / "src"
    )
    assert refused.code == 2
    assert (
        "--anchor 'src/store.py' (src/src/store.py in the repository) is not in the "
        "repository's files nor in its history; did you mean store.py?"
    ) in refused.stderr


@pytest.mark.parametrize("outside", ["/etc/hosts::x", "../../x.py::f"])
def test_an_anchor_outside_the_repository_is_refused_naming_the_option(
    repo: Path, cli: Callable[..., CliResult], outside: str
) -> None:
    refused = cli("remember", "n", "-c", "gotcha", "--anchor", outside, cwd=repo / "src")
    assert refused.code == 2
    assert refused.stderr.startswith("tether: error: --anchor ")
    assert "resolves outside the repository" in refused.stderr
    assert not list((repo / ".tether" / "memories").glob("*.md"))
