"""Every command run in git's own folder (a bare repository, or a folder inside one) says so
and names a clone to run in: one that needs the repository's memories is refused as ``init``
is (exit 2), one that can read the user-wide store alone does, and says it; none of them says
the folder is not inside a git repository, nor to ``git init`` there."""

from __future__ import annotations

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
