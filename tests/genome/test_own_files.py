"""Tether's own files (memory files a team commits with the code) do not make a commit bulk:
the cap on a commit's size counts the project's files only, in a rebuild, in an incremental
refresh, and in a genome counted by the rules before."""

from __future__ import annotations

from collections.abc import Callable

from recall.genome import MAX_COMMIT_FILES, Genome, Neighbour
from recall.genome.schema import HISTORY_RULES, HISTORY_RULES_STATE

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


def test_a_genome_counted_by_the_rules_before_is_read_again(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    """An index refreshed by a version that counted memory files (its bookkeeping records no
    rules) is stale, and its history is read again: an incremental refresh would mix counts."""
    repo = make_repo("repo")
    _with_memories(repo)
    genome = open_genome(repo.root, db="shared")
    genome.refresh()
    expected = dump(genome)
    assert expected["commits"][0][2] == len(SOURCES)
    with genome.conn:
        genome.conn.execute("DELETE FROM genome_state WHERE key = ?", (HISTORY_RULES_STATE,))
        genome.conn.execute("UPDATE genome_commits SET nfiles = ?", (len(SOURCES) + len(MEMORIES),))
    older = open_genome(repo.root, db="shared")
    assert older.is_stale()
    assert older.refresh().mode == "full"
    assert dump(older) == expected
    assert not older.is_stale()
    state = dict(older.conn.execute("SELECT key, value FROM genome_state"))
    assert state[HISTORY_RULES_STATE] == HISTORY_RULES
