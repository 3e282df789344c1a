"""Every command run in git's own folder (a bare repository, a clone's ``.git``, or a folder
inside one) says so and names a clone or the work tree to run in: one that needs the
repository's memories is refused as ``init`` is (exit 2), one that can read the user-wide store
alone does, and says it; none of them says the folder is not inside a git repository, nor to
``git init`` there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import git, run_tether

NEEDS_THE_PROJECT = [
    ("init",),
    ("remember", "a note", "-c", "gotcha"),
    ("index",),
    ("reindex",),
    ("check",),
    ("stats",),
    ("export",),
]
READS_THE_GLOBAL_STORE = [
    ("list",),
    ("search", "note"),
    ("recall", "hello"),
    ("doctor",),
    ("session", "start"),
    ("inject",),
]


@pytest.fixture
def bare(repo: Path, tmp_path: Path) -> Path:
    """A bare clone of the test repository."""
    git(tmp_path, "clone", "-q", "--bare", str(repo), "bare.git")
    return tmp_path / "bare.git"


def said_of_the_folder(stderr: str, bare: Path) -> None:
    """Check that ``stderr`` says ``bare`` is git's own folder and names a clone to run in."""
    assert "git's own folder, with no working tree" in stderr
    assert f"run tether in a clone of it (`git clone {bare}`)" in stderr
    assert "not inside a git repository" not in stderr
    assert "git init" not in stderr


@pytest.mark.parametrize("args", NEEDS_THE_PROJECT, ids=lambda a: a[0])
def test_a_command_needing_the_repository_is_refused_with_exit_2(
    bare: Path, args: tuple[str, ...]
) -> None:
    for cwd in (bare, bare / "refs"):
        before = sorted(p.name for p in bare.iterdir())
        result = run_tether(*args, cwd=cwd)
        assert result.code == 2, (args, result.stderr)
        said_of_the_folder(result.stderr, bare)
        assert sorted(p.name for p in bare.iterdir()) == before


@pytest.mark.parametrize("args", READS_THE_GLOBAL_STORE, ids=lambda a: a[0])
def test_a_command_reading_the_user_wide_store_goes_on_and_says_where_it_runs(
    bare: Path, args: tuple[str, ...]
) -> None:
    result = run_tether(*args, cwd=bare)
    assert result.code in (0, 1), (args, result.stderr)  # 1: nothing found, as outside git
    said_of_the_folder(result.stderr, bare)
    assert "only your user-wide memories are read here" in result.stderr
    assert not (bare / ".tether").exists()


def test_the_user_wide_memories_are_listed_in_a_bare_repository(bare: Path) -> None:
    written = run_tether("remember", "--global", "prefer small commits", "-c", "pref", cwd=bare)
    assert written.code == 0, written.stderr
    result = run_tether("list", cwd=bare)
    assert result.code == 0
    assert "prefer small commits" in result.stdout
    said_of_the_folder(result.stderr, bare)


@pytest.fixture
def set_up(repo: Path) -> Path:
    """The test repository with a store holding one project memory and one user-wide memory."""
    for args in (
        (
            "remember",
            "commits of the session go through safeRename",
            "-c",
            "gotcha",
            "-f",
            "README.md",
        ),
        ("remember", "--global", "prefer small commits", "-c", "pref"),
    ):
        written = run_tether(*args, cwd=repo)
        assert written.code == 0, written.stderr
    return repo


def said_of_the_git_folder(stderr: str, repo: Path) -> None:
    """Check that ``stderr`` says the clone's ``.git`` is git's own folder, naming its work tree."""
    assert f"{repo / '.git'} is git's own folder" in stderr or (
        f"is inside {repo / '.git'}, git's own folder" in stderr
    )
    assert f"run tether in {repo}" in stderr


def memory_files(repo: Path) -> list[str]:
    """The memory files of the repository's store."""
    return sorted(p.name for p in (repo / ".tether" / "memories").glob("*.md"))


@pytest.mark.parametrize("args", NEEDS_THE_PROJECT, ids=lambda a: a[0])
def test_a_command_needing_the_repository_is_refused_in_a_clones_git_folder(
    set_up: Path, args: tuple[str, ...]
) -> None:
    before = memory_files(set_up)
    for inside in (".git", ".git/refs"):
        result = run_tether(*args, cwd=set_up / inside)
        assert result.code == 2, (args, inside, result.stderr)
        said_of_the_git_folder(result.stderr, set_up)
        assert memory_files(set_up) == before
        assert not (set_up / inside / ".tether").exists()


@pytest.mark.parametrize("inside", [".git", ".git/refs"])
def test_remember_naming_a_work_tree_file_from_a_clones_git_folder_writes_nothing(
    set_up: Path, inside: str
) -> None:
    before = memory_files(set_up)
    to_readme = os.path.relpath(set_up / "README.md", set_up / inside)
    result = run_tether("remember", "a note", "-c", "gotcha", "-f", to_readme, cwd=set_up / inside)
    assert result.code == 2, result.stderr
    said_of_the_git_folder(result.stderr, set_up)
    assert "one of git's own files" not in result.stderr
    assert memory_files(set_up) == before


@pytest.mark.parametrize("inside", [".git", ".git/refs"])
@pytest.mark.parametrize("args", [("list",), ("search", "commits"), ("recall", "-f", "README.md")])
def test_a_read_in_a_clones_git_folder_covers_the_user_wide_memories_alone(
    set_up: Path, inside: str, args: tuple[str, ...]
) -> None:
    result = run_tether(*args, cwd=set_up / inside)
    assert result.code in (0, 1), (args, result.stderr)  # 1: recall finds no global one by file
    assert "safeRename" not in result.stdout
    said_of_the_git_folder(result.stderr, set_up)
    assert "only your user-wide memories are read here" in result.stderr
    if args[0] != "recall":
        assert "prefer small commits" in result.stdout
