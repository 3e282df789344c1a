"""A file the repository does not know, named from a subfolder, is refused as it was typed
there, and the names offered instead are those that work when typed there; from the root, as
the repository has them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, commit_rename


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


# a typo of src/util.py typed from src/, and the command that takes it there
TYPO_COMMANDS = [
    ("recall", "-f"),
    ("inject", "-f"),
    ("list", "--file"),
    ("neighbours",),
    ("fanin",),
]


@pytest.mark.parametrize("command", TYPO_COMMANDS, ids=lambda c: c[0])
def test_a_typo_from_a_subfolder_is_said_and_answered_as_typed_there(
    repo: Path, cli: Callable[..., CliResult], command: tuple[str, ...]
) -> None:
    assert cli("init").code == 0
    said = cli(*command, "utl.py", cwd=repo / "src")
    assert "utl.py is not a file of this repository; did you mean util.py?" in said.stderr
    assert "src/" not in said.stderr, said.stderr
    # the name offered, typed back where it was offered, is a file: nothing more to say of it
    again = cli(*command, "util.py", cwd=repo / "src")
    assert "is not a file" not in again.stderr, again.stderr
    # a file outside the folder is offered as it is reached from it
    above = cli(*command, "../READM.md", cwd=repo / "src")
    assert "../READM.md is not a file of this repository; did you mean ../README.md?" in (
        above.stderr
    )


def test_a_folder_named_from_a_subfolder_is_said_with_its_files_as_typed_there(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    assert cli("init").code == 0
    said = cli("recall", "-f", ".", cwd=repo / "src")
    assert "path '.' is a folder; recall takes the files touched (app.py, util.py)" in (said.stderr)
    refused = cli("remember", "n", "-c", "gotcha", "-f", "../docs", cwd=repo / "src")
    assert refused.code == 2
    assert "--file '../docs' is a folder; name the files it is about (../docs/guide.md)" in (
        refused.stderr
    )


def test_the_json_of_a_typo_from_a_subfolder_keeps_the_repository_s_path(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    assert cli("init").code == 0
    found = cli("--json", "neighbours", "utl.py", cwd=repo / "src").json()
    assert found["path"] == "src/utl.py"  # for a machine, as the repository has it
    assert found["notes"] == ["utl.py is not a file of this repository; did you mean util.py?"]


def test_a_file_renamed_since_is_said_by_the_names_typed_in_a_subfolder(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    assert cli("init").code == 0
    commit_rename(repo, "src/util.py", "src/utils.py")
    written = cli("remember", "X", "-c", "gotcha", "-f", "util.py", cwd=repo / "src")
    assert written.code == 0, written.stderr
    assert (
        "--file 'util.py' was renamed to utils.py; the memory names src/util.py (recall "
        "follows the rename; give utils.py to name it as it is now)"
    ) in written.stderr
    fanin = cli("fanin", "util.py", cwd=repo / "src")
    assert "util.py is not a file of the working tree; git shows it renamed to utils.py: " in (
        fanin.stderr
    )
    assert "`tether fanin utils.py`" in fanin.stderr
    near = cli("neighbours", "util.py", cwd=repo / "src")
    assert "`tether neighbours utils.py`" in near.stderr
    recalled = cli("recall", "-f", "util.py", cwd=repo / "src")
    assert (
        "util.py is not in the working tree (deleted, or not on this branch); recalling the "
        "memories that name it all the same"
    ) in recalled.stderr


def test_outside_git_a_missing_file_is_not_said_to_be_off_a_branch(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert cli("init", cwd=plain).code == 0
    written = cli(
        "remember",
        "g",
        "-c",
        "gotcha",
        "--global",
        "-f",
        "src/utils.ts",
        "--allow-missing",
        cwd=plain,
    )
    assert written.code == 0, written.stderr
    recalled = cli("recall", "-f", "src/utils.ts", cwd=plain)
    assert (
        "src/utils.ts is not in the project folder; recalling the memories that name it all "
        "the same"
    ) in recalled.stderr
    assert "branch" not in recalled.stderr
    typo = cli("recall", "-f", "src/util.ts", cwd=plain)
    assert "src/util.ts is not in the project folder" in typo.stderr
    assert "branch" not in typo.stderr and "of this repository" not in typo.stderr
