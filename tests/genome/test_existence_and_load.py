"""Existence answers, and opening an up-to-date genome without running git."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from recall.genome import Genome
from recall.genome.schema import GENOME_SCHEMA, SCHEMA_KEY
from recall.ranking.file_channels import cochange_neighbours

from .dump import dump
from .gitrepo import GitRepo


@pytest.fixture
def repo(make_repo: Callable[[str], GitRepo]) -> GitRepo:
    repo = make_repo("repo")
    repo.write(".gitignore", "*.log\nbuild/\n")
    repo.commit("ignore rules")
    repo.commit("one", "src/a.py", "src/b.py", "gone.py")
    repo.remove("gone.py")
    repo.commit("two", "src/a.py")
    return repo


def test_existence(repo: GitRepo, open_genome: Callable[..., Genome]) -> None:
    repo.write("untracked.py", "x = 1\n")
    repo.write("debug.log", "ignored\n")
    repo.write("build/out.py", "ignored\n")
    genome = open_genome(repo.root)
    genome.refresh()
    assert genome.exists("src/a.py")
    assert genome.exists("untracked.py")
    assert genome.exists("debug.log")  # ignored, and on disk: a memory may name it
    assert genome.exists("build/out.py")
    assert not genome.exists("gone.py")
    assert not genome.exists("src")
    assert not genome.exists("nothing/here.py")
    assert not genome.exists(".git/HEAD")  # git's own files are no file of the repository
    (repo.root / "src/b.py").unlink()
    assert not genome.exists("src/b.py")
    repo.write("later.py", "y = 2\n")
    repo.write("later.log", "new since the refresh\n")
    assert genome.exists("later.py")
    assert genome.exists("later.log")


def test_a_link_made_after_the_refresh_to_an_older_file_exists(
    repo: GitRepo, open_genome: Callable[..., Genome]
) -> None:
    genome = open_genome(repo.root)
    genome.refresh()
    (repo.root / "link.py").symlink_to("src/a.py")
    (repo.root / "to_folder").symlink_to("src")
    assert genome.exists("link.py")
    assert not genome.exists("to_folder")


def test_an_ignored_build_output_history_tracked_is_no_neighbour(
    repo: GitRepo, open_genome: Callable[..., Genome]
) -> None:
    for _ in range(3):  # committed with src/a.py, past the ignore rule
        repo.write("build/out.py")
        repo.git("add", "-f", "build/out.py")
        repo.commit("build with the source", "src/a.py")
    repo.git("rm", "-q", "--cached", "build/out.py")  # untracked, and left on disk as ignored
    repo.commit("stop tracking the build output")
    genome = open_genome(repo.root)
    genome.refresh()
    assert genome.exists("build/out.py")
    missing = [n.path for n in genome.neighbours("src/a.py", 5, include_missing=True)]
    assert "build/out.py" in missing
    assert "build/out.py" not in [n.path for n in genome.neighbours("src/a.py", 5)]
    touched = {"src/a.py": 1.0}
    reached = cochange_neighbours(touched, genome.neighbours, genome.exists)
    assert "build/out.py" not in [hit.path for hit in reached]


def test_deleted_file_leaves_neighbours(repo: GitRepo, open_genome: Callable[..., Genome]) -> None:
    genome = open_genome(repo.root)
    genome.refresh()
    assert [n.path for n in genome.neighbours("src/a.py", 5)] == ["src/b.py"]
    assert [n.path for n in genome.neighbours("src/a.py", 5, include_missing=True)] == [
        "gone.py",
        "src/b.py",
    ]


class _SpawnCounter:
    """Counts every child process started while installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = subprocess.Popen.__init__

        def counting(popen: subprocess.Popen, *args: object, **kwargs: object) -> None:
            self.count += 1
            original(popen, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(subprocess.Popen, "__init__", counting)


def test_load_of_a_fresh_genome_runs_no_git(
    repo: GitRepo, open_genome: Callable[..., Genome], monkeypatch: pytest.MonkeyPatch
) -> None:
    open_genome(repo.root, db="shared").refresh()
    spawned = _SpawnCounter(monkeypatch)
    genome = Genome.load(repo.root, open_genome(repo.root, db="shared").conn)
    assert genome.last_summary is None
    assert genome.exists("src/a.py")
    assert genome.neighbours("src/a.py", 2)
    assert genome.fan_in("src/a.py") == 0
    assert genome.renamed_from("src/a.py") == []
    assert spawned.count == 0


def test_load_refreshes_what_moved(
    repo: GitRepo, open_genome: Callable[..., Genome], monkeypatch: pytest.MonkeyPatch
) -> None:
    open_genome(repo.root, db="shared").refresh()
    repo.commit("three", "src/a.py", "src/c.py")
    genome = Genome.load(repo.root, open_genome(repo.root, db="shared").conn)
    assert genome.last_summary is not None
    assert genome.last_summary.mode == "incremental"
    assert genome.last_summary.commits_read == 1
    assert not genome.is_stale()
    repo.write("staged.py", "z = 3\n")
    repo.git("add", "staged.py")
    assert genome.is_stale()
    assert Genome.load(repo.root, genome.conn).last_summary is not None
    assert genome.exists("staged.py")


def test_packed_refs_are_read(repo: GitRepo, open_genome: Callable[..., Genome]) -> None:
    genome = open_genome(repo.root)
    genome.refresh()
    repo.git("pack-refs", "--all")
    assert not (repo.root / ".git/refs/heads/main").exists()
    assert not genome.is_stale()


def test_settings_change_rebuilds(repo: GitRepo, open_genome: Callable[..., Genome]) -> None:
    open_genome(repo.root, db="shared").refresh()
    narrow = open_genome(repo.root, db="shared", max_commit_files=2)
    assert narrow.is_stale()
    summary = narrow.refresh()
    assert summary.mode == "full"
    assert summary.commits_skipped_large == 1


def test_schema_mismatch_drops_and_rebuilds(
    repo: GitRepo, open_genome: Callable[..., Genome]
) -> None:
    genome = open_genome(repo.root)
    genome.refresh()
    before = dump(genome)
    genome.conn.execute("INSERT INTO genome_tree(path) VALUES('junk.py')")
    genome.conn.execute("UPDATE meta SET value = 'old' WHERE key = ?", (SCHEMA_KEY,))
    stale = Genome(repo.root, genome.conn)
    assert stale.neighbours("src/a.py", 2) == []
    assert stale.exists("src/a.py")
    assert stale.is_stale()
    assert stale.refresh().mode == "full"
    row = genome.conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
    assert row[0] == GENOME_SCHEMA
    assert dump(stale) == before


def test_plain_sqlite_connection(repo: GitRepo, tmp_path: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(tmp_path / "plain.db")
    genome = Genome(repo.root, conn)
    assert genome.refresh().commits_read == 3
    assert genome.neighbours("src/a.py", 1)[0].path == "src/b.py"
    conn.close()
