"""Tether's own files (memory files a team commits with the code) do not make a commit bulk:
the cap on a commit's size counts the project's files only, in a rebuild and in an incremental
refresh, and they are paired with no file for co-change."""

from __future__ import annotations

from collections.abc import Callable

from recall.genome import MAX_COMMIT_FILES, Genome, Neighbour
from recall.genome.packing import unpack_near

from .dump import dump
from .gitrepo import GitRepo

SOURCES = [f"src/m{n}.py" for n in range(5)]
MEMORIES = [f".tether/memories/{n:08x}.md" for n in range(40)]


def _with_memories(repo: GitRepo) -> None:
    """Five source files changed together, with forty memory files written about them."""
    repo.commit("five files and their memories", *SOURCES, *MEMORIES)


def _neighbours_of_first(genome: Genome) -> list[Neighbour]:
    return genome.neighbours(SOURCES[0], 10)


def test_memory_files_do_not_make_a_commit_bulk(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    assert len(SOURCES) + len(MEMORIES) > MAX_COMMIT_FILES >= len(SOURCES)
    repo = make_repo("repo")
    drafts = [f"drafts/d{n:02d}.py" for n in range(MAX_COMMIT_FILES)]
    repo.commit("drafts", *drafts)
    _with_memories(repo)
    # Files moved into Tether's folder leave the project: each is a change to it.
    for path in drafts:
        repo.move(path, f".tether/{path}")
    repo.commit("drafts leave the project", SOURCES[0])
    genome = open_genome(repo.root)
    summary = genome.refresh()
    assert summary.commits_skipped_large == 1  # the drafts' move: over the cap
    assert _neighbours_of_first(genome) == [Neighbour(path, 1, 1.0, 1) for path in SOURCES[1:]]


def test_incremental_refresh_counts_as_a_rebuild(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("start", *SOURCES)
    genome = open_genome(repo.root, db="incremental")
    genome.refresh()
    _with_memories(repo)
    assert genome.refresh().mode == "incremental"
    assert _neighbours_of_first(genome) == [Neighbour(path, 2, 1.0, 2) for path in SOURCES[1:]]
    rebuilt = open_genome(repo.root, db="full")
    rebuilt.refresh(full=True)
    assert dump(genome) == dump(rebuilt)


def test_memory_files_are_paired_with_nothing(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    """A commit of five source files and forty memory files pairs the five among themselves
    only: forty memory files would else add 45 pairs each way to every one of them."""
    repo = make_repo("repo")
    _with_memories(repo)
    genome = open_genome(repo.root)
    genome.refresh()
    near = {
        path: dict(unpack_near(packed))
        for path, packed in genome.conn.execute("SELECT path, near FROM genome_files")
    }
    ids = dict(genome.conn.execute("SELECT path, id FROM genome_files"))
    sources = {ids[path] for path in SOURCES}
    for path in SOURCES:
        assert set(near[path]) == sources - {ids[path]}
    for path in MEMORIES:
        assert near[path] == {}


def test_a_genome_counted_by_the_rule_before_is_kept_until_a_full_index(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    """A genome an earlier version counted (memory files in a commit's size) is not read again
    by itself, at an upgrade nor each time an older version refreshes it beside a newer one:
    its commits keep their count until a full index (``tether index --full``) counts them
    again; commits read from then on are counted by this rule."""
    repo = make_repo("repo")
    _with_memories(repo)
    genome = open_genome(repo.root, db="shared")
    genome.refresh()
    expected = dump(genome)
    assert expected["commits"][0][2] == len(SOURCES)
    with genome.conn:
        genome.conn.execute("UPDATE genome_commits SET nfiles = ?", (len(SOURCES) + len(MEMORIES),))
    older = open_genome(repo.root, db="shared")
    assert not older.is_stale()
    assert older.refresh().mode == "unchanged"
    assert dump(older)["commits"][0][2] == len(SOURCES) + len(MEMORIES)
    assert older.refresh(full=True).mode == "full"
    assert dump(older) == expected
