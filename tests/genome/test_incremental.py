"""Incremental refreshes give exactly what a rebuild from scratch gives."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from recall.genome import Genome

from .dump import dump
from .gitrepo import GitRepo

Step = Callable[[GitRepo], None]


def _rename_onto_old_name(repo: GitRepo) -> None:
    # keep.py had a history and was deleted; renaming onto its name merges both lives.
    repo.move("extra.py", "keep.py")
    repo.commit("rename onto a name with history", "util.py")


def _swap(repo: GitRepo) -> None:
    repo.move("a.py", "tmp.py")
    repo.move("b.py", "a.py")
    repo.move("tmp.py", "b.py")
    repo.commit("swap a and b")


def _bulk(repo: GitRepo) -> None:
    repo.commit("bulk", "a.py", *[f"gen/g{n:02d}.py" for n in range(31)])


STEPS: list[tuple[str, Step]] = [
    ("start", lambda r: r.commit("start", "a.py", "b.py", "keep.py", "util.py")),
    ("pair", lambda r: r.commit("pair", "a.py", "b.py")),
    ("keep", lambda r: r.commit("keep", "keep.py", "util.py", "a.py")),
    ("bulk", _bulk),
    ("move", lambda r: (r.move("util.py", "lib/util.py"), r.commit("move util", "a.py"))),
    ("delete", lambda r: (r.remove("keep.py"), r.commit("delete keep", "b.py"))),
    ("extra", lambda r: r.commit("extra", "extra.py", "b.py", "lib/util.py")),
    ("onto", _rename_onto_old_name),
    ("swap", _swap),
    ("recreate", lambda r: r.commit("recreate extra", "extra.py", "a.py")),
    ("again", lambda r: r.commit("again", "keep.py", "a.py", "lib/util.py")),
]


def _full(repo: GitRepo, open_genome: Callable[..., Genome], db: str) -> Genome:
    genome = open_genome(repo.root, db=db)
    genome.refresh(full=True)
    return genome


def test_incremental_after_every_commit_equals_rebuild(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    incremental = open_genome(repo.root, db="incremental")
    for number, (name, step) in enumerate(STEPS):
        step(repo)
        summary = incremental.refresh()
        assert summary.mode == ("full" if number == 0 else "incremental"), name
        assert summary.commits_read == 1, name
        rebuilt = _full(repo, open_genome, db=f"full-{name}")
        assert dump(incremental) == dump(rebuilt), name


@pytest.mark.parametrize("split", [1, 4, 7, 8])
def test_incremental_in_one_batch_equals_rebuild(
    split: int, make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    genome = open_genome(repo.root, db="incremental")
    for _, step in STEPS[:split]:
        step(repo)
    genome.refresh()
    for _, step in STEPS[split:]:
        step(repo)
    summary = genome.refresh()
    assert summary.mode == "incremental"
    assert summary.commits_read == len(STEPS) - split
    assert dump(genome) == dump(_full(repo, open_genome, db="full"))


def test_merged_names_are_counted_once(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    for _, step in STEPS:
        step(repo)
    genome = _full(repo, open_genome, db="full")
    # keep.py: start, keep, delete; then extra.py's life (extra, onto); then again.
    # util.py is a new file at the name util.py left (added in "onto").
    neighbours = {n.path: n.support for n in genome.neighbours("keep.py", 20)}
    assert genome.neighbours("keep.py", 1)[0].commits_of_path == 6
    assert neighbours == {"a.py": 3, "b.py": 3, "lib/util.py": 4, "util.py": 1}
    assert genome.renamed_from("keep.py") == ["extra.py"]


def test_nothing_new_reads_nothing(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    STEPS[0][1](repo)
    genome = open_genome(repo.root)
    genome.refresh()
    before = dump(genome)
    summary = genome.refresh()
    assert summary.mode == "unchanged"
    assert summary.commits_read == 0
    assert summary.files_scanned == 0
    assert dump(genome) == before


def test_force_push_rewrite_rebuilds(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    for _, step in STEPS[:6]:
        step(repo)
    genome = open_genome(repo.root, db="incremental")
    genome.refresh()
    repo.git("reset", "-q", "--hard", "HEAD~3")
    repo.commit("rewritten one", "a.py", "z.py")
    repo.commit("rewritten two", "z.py", "b.py")
    summary = genome.refresh()
    assert summary.mode == "full"
    assert any("rewritten" in notice for notice in summary.notices)
    assert summary.commits_read == 5
    assert dump(genome) == dump(_full(repo, open_genome, db="full"))
    assert genome.renamed_to("util.py") is None
