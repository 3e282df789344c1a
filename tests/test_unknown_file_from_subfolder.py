"""A file the repository does not know, named from a subfolder, is refused as it was typed
there, and the names offered instead are those that work when typed there; from the root, as
the repository has them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult


def test_a_typo_from_a_subfolder_offers_what_to_type_there(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    assert cli("init").code == 0
    # src/util.py is a file of the repository; from src/ it is util.py
    refused = cli("remember", "n", "-c", "gotcha", "-f", "src/util.py", cwd=repo / "src")
    assert refused.code == 2
    assert (
        "--file 'src/util.py' (src/src/util.py in the repository) is not in the repository's "
        "files nor in its history; did you mean util.py?"
    ) in refused.stderr
    done = cli("remember", "n", "-c", "gotcha", "-f", "util.py", "--json", cwd=repo / "src")
    assert done.code == 0, done.stderr
    assert cli("show", done.json()["id"], "--json").json()["files"] == ["src/util.py"]


def test_from_the_root_the_names_are_the_repository_s(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    assert cli("init").code == 0
    refused = cli("remember", "n", "-c", "gotcha", "-f", "src/utl.py")
    assert "--file 'src/utl.py' is not in the repository's files nor in its history; " in (
        refused.stderr
    )
    assert "did you mean src/util.py?" in refused.stderr
