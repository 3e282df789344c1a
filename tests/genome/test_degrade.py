"""No git, no repository, no commits, a shallow clone, a detached HEAD: fewer signals and
one notice each, never an exception."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from recall.genome import Genome, Neighbour

from .gitrepo import GitRepo


def test_folder_outside_any_repository(tmp_path: Path, open_genome: Callable[..., Genome]) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello\n")
    genome = open_genome(folder)
    summary = genome.refresh()
    assert summary.mode == "unavailable"
    assert len(summary.notices) == 1
    assert "not inside a git repository" in summary.notices[0]
    assert genome.exists("notes.txt")
    assert not genome.exists("missing.txt")
    assert genome.neighbours("notes.txt", 3) == []
    assert genome.fan_in("notes.txt") == 0
    assert genome.renamed_to("notes.txt") is None
    assert not genome.is_stale()


def test_no_git_binary(
    make_repo: Callable[[str], GitRepo],
    open_genome: Callable[..., Genome],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "a.py", "b.py")
    genome = open_genome(repo.root)
    genome.refresh()
    assert genome.neighbours("a.py", 3) == [Neighbour("b.py", 1, 1.0, 1)]
    empty = tmp_path / "no-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    summary = genome.refresh()
    assert summary.mode == "unavailable"
    assert len(summary.notices) == 1
    assert "git is not available" in summary.notices[0]
    assert genome.neighbours("a.py", 3) == []
    assert genome.exists("a.py")


def test_no_project_folder(open_genome: Callable[..., Genome]) -> None:
    genome = open_genome(None)
    summary = genome.refresh()
    assert summary.mode == "unavailable"
    assert summary.notices == ["no project folder: the genome has nothing to read"]
    assert not genome.exists("a.py")
    assert not genome.is_stale()


def test_empty_repository(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.write("draft.py", "import helper\n")
    repo.write("helper.py", "X = 1\n")
    genome = open_genome(repo.root)
    summary = genome.refresh()
    assert summary.mode == "empty"
    assert summary.head is None
    assert summary.notices == [
        "the repository has no commits yet: no co-change or renames until the first one"
    ]
    assert genome.exists("draft.py")
    assert genome.fan_in("helper.py") == 1
    assert not genome.is_stale()
    repo.commit("first")
    assert genome.is_stale()
    after = genome.refresh()
    assert after.mode == "full"
    assert after.commits_read == 1
    assert genome.neighbours("draft.py", 2) == [Neighbour("helper.py", 1, 1.0, 1)]


def test_shallow_clone(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome], tmp_path: Path
) -> None:
    origin = make_repo("origin")
    origin.commit("one", "a.py", "b.py")
    origin.commit("two", "a.py", "b.py")
    origin.commit("three", "a.py", "c.py")
    origin.commit("four", "a.py", "c.py")
    clone = tmp_path / "clone"
    origin.git("clone", "-q", "--depth", "2", f"file://{origin.root}", str(clone))
    genome = open_genome(clone)
    summary = genome.refresh()
    # Depth 2 fetches "four" and "three"; "three" is the boundary, shown as adding every
    # file, so only "four" is history.
    assert summary.commits_read == 1
    assert len(summary.notices) == 1
    assert "shallow clone" in summary.notices[0]
    assert genome.neighbours("a.py", 3) == [Neighbour("c.py", 1, 1.0, 1)]
    assert genome.exists("b.py")
    GitRepo(clone).git("fetch", "-q", "--deepen", "1")
    deeper = genome.refresh()
    assert deeper.mode == "full"
    assert deeper.commits_read == 2
    assert genome.neighbours("a.py", 3) == [Neighbour("c.py", 2, 1.0, 2)]


def test_a_rename_in_a_shallow_clone_is_followed(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome], tmp_path: Path
) -> None:
    """The renamed file's add lies beyond the clone's depth, so its old name was never seen:
    git still shows the rename, and memories naming the old name still find the file."""
    origin = make_repo("origin")
    origin.commit("one", "a.py")
    origin.commit("two", "b.py")
    origin.commit("three", "b.py")
    origin.move("a.py", "c.py")
    origin.commit("move")
    clone = tmp_path / "clone"
    origin.git("clone", "-q", "--depth", "3", f"file://{origin.root}", str(clone))
    genome = open_genome(clone)
    genome.refresh()
    assert genome.renamed_from("c.py") == ["a.py"]
    assert genome.renamed_to("a.py") == "c.py"


def test_detached_head(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "a.py", "b.py")
    first = repo.head()
    repo.commit("two", "a.py", "c.py")
    repo.git("checkout", "-q", "--detach", first)
    genome = open_genome(repo.root)
    summary = genome.refresh()
    assert summary.head == first
    assert summary.commits_read == 1
    assert len(summary.notices) == 1
    assert summary.notices[0].startswith(f"detached HEAD at {first[:12]}")
    assert genome.neighbours("a.py", 3) == [Neighbour("b.py", 1, 1.0, 1)]
    assert not genome.exists("c.py")


def test_project_in_a_subfolder(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "app/a.py", "app/b.py", "other/x.py")
    repo.commit("two", "app/a.py", "other/x.py")
    genome = open_genome(repo.root / "app")
    summary = genome.refresh()
    assert summary.commits_read == 2
    assert summary.files_tracked == 2
    assert genome.neighbours("a.py", 3) == [Neighbour("b.py", 1, 1 / 2, 2)]
    assert genome.exists("b.py")
    assert not genome.exists("other/x.py")


def test_names_that_are_not_utf8_are_left_out(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    with open(os.path.join(os.fsencode(repo.root), b"caf\xe9.py"), "wb") as handle:
        handle.write(b"import good\n")
    repo.commit("odd name", "good.py", "other.py")
    genome = open_genome(repo.root)
    summary = genome.refresh()
    assert summary.commits_read == 1
    assert summary.files_tracked == 2
    assert genome.neighbours("good.py", 3) == [Neighbour("other.py", 1, 1.0, 1)]


def test_broken_repository_leaves_the_genome_alone(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "a.py", "b.py")
    genome = open_genome(repo.root)
    genome.refresh()
    (repo.root / ".git/refs/heads/main").write_text("0123456789" * 4 + "\n")
    summary = genome.refresh()
    assert summary.mode == "failed"
    assert len(summary.notices) == 1
    assert "git could not read the repository" in summary.notices[0]
    assert genome.neighbours("a.py", 3) == [Neighbour("b.py", 1, 1.0, 1)]


def test_linked_worktree(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome], tmp_path: Path
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "a.py", "b.py")
    repo.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = GitRepo(tmp_path / "side")
    side.commits, side.revision = repo.commits, repo.revision
    side.commit("two", "a.py", "c.py")
    genome = open_genome(side.root)
    summary = genome.refresh()
    assert summary.head == side.head()
    assert summary.commits_read == 2
    assert genome.neighbours("a.py", 3) == [
        Neighbour("b.py", 1, 1 / 2, 2),
        Neighbour("c.py", 1, 1 / 2, 2),
    ]
    assert not genome.is_stale()
    side.commit("three", "c.py")
    assert genome.is_stale()
    assert genome.refresh().mode == "incremental"
