"""The commits' times packed for drift counts: filled by every refresh, read in one statement,
and never needed for a right answer (a reader without them reads the commits' rows)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from recall.genome import Genome, commit_times
from recall.genome.commit_times import MAX_PARTS, read_times

from .gitrepo import GitRepo


def _history(repo: GitRepo) -> None:
    """Six commits on three files; the fourth and fifth dated before the third (clocks that
    disagree), so commit order and time order differ."""
    repo.commit("c0", "a.py", "b.py")
    repo.commit("c1", "a.py")
    repo.commit("c2", "a.py", "c.py")
    repo.commits = 1  # the next two are dated as if made between c0 and c1
    repo.commit("c3", "a.py")
    repo.commit("c4", "b.py", "a.py")
    repo.commits = 5
    repo.commit("c5", "a.py")


@pytest.fixture
def indexed(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> tuple[GitRepo, Genome]:
    """The history of :func:`_history`, indexed by a refresh."""
    repo = make_repo("repo")
    _history(repo)
    genome = open_genome(repo.root)
    genome.refresh()
    return repo, genome


def _asked(repo: GitRepo) -> list[tuple[str, str]]:
    return [(path, repo.date(n)) for path in ("a.py", "b.py", "c.py") for n in range(6)]


def _rows(genome: Genome) -> list[int]:
    return [ts for (ts,) in genome.conn.execute("SELECT ts FROM genome_commits ORDER BY seq")]


def _firsts(genome: Genome) -> list[int]:
    return [row[0] for row in genome.conn.execute("SELECT first FROM genome_times ORDER BY first")]


def _without_packed(open_genome: Callable[..., Genome], repo: GitRepo) -> Genome:
    """The same index read as an older version left it: no packed times at all."""
    genome = open_genome(repo.root)
    genome.conn.execute("DROP TABLE genome_times")
    genome.conn.commit()
    return genome


def test_a_refresh_packs_every_commit_time(indexed: tuple[GitRepo, Genome]) -> None:
    genome = indexed[1]
    times = read_times(genome.conn)
    assert times is not None
    assert list(times[1:]) == _rows(genome)
    assert len(_rows(genome)) == 6


def test_counts_from_packed_times_are_those_of_the_commit_rows(
    indexed: tuple[GitRepo, Genome], open_genome: Callable[..., Genome]
) -> None:
    repo, genome = indexed
    statements: list[str] = []
    fresh = open_genome(repo.root)  # the next process, reading the same index
    fresh.conn.set_trace_callback(statements.append)
    packed = fresh.commits_touching_many(_asked(repo))
    # one read of the packed times, none of the commit rows
    assert [s for s in statements if "genome_times" in s]
    assert not [s for s in statements if "genome_commits WHERE seq IN" in s]
    fresh.conn.set_trace_callback(None)
    rows = _without_packed(open_genome, repo).commits_touching_many(_asked(repo))
    assert packed == rows
    assert packed == {pair: genome.commits_touching(*pair) for pair in _asked(repo)}
    # a.py: c3 and c4 are dated between c0 and c1, so five of its commits are at or after
    # c1's time, and only c5 at or after c5's
    assert packed[("a.py", repo.date(1))] == 5
    assert packed[("a.py", repo.date(5))] == 1
    assert packed[("b.py", repo.date(2))] == 1


def test_an_index_made_before_the_packed_times_gets_them_at_its_next_refresh(
    indexed: tuple[GitRepo, Genome], open_genome: Callable[..., Genome]
) -> None:
    repo, genome = indexed
    expected = genome.commits_touching_many(_asked(repo))
    old = _without_packed(open_genome, repo)
    assert read_times(old.conn) is None
    assert old.commits_touching_many(_asked(repo)) == expected  # the rows, as before
    old.refresh()  # nothing new to index: the packed times are still filled in
    times = read_times(old.conn)
    assert times is not None and list(times[1:]) == _rows(old)


def test_new_commits_are_packed_by_the_refresh_that_indexes_them(
    indexed: tuple[GitRepo, Genome], open_genome: Callable[..., Genome]
) -> None:
    repo, genome = indexed
    repo.commits = 7
    repo.commit("c6", "c.py", "a.py")
    repo.commit("c7", "c.py")
    genome.refresh()
    assert _firsts(genome) == [1, 7]
    times = read_times(genome.conn)
    assert times is not None and list(times[1:]) == _rows(genome)
    fresh = open_genome(repo.root)
    assert fresh.commits_touching_many([("c.py", repo.date(2))]) == {("c.py", repo.date(2)): 3}


def test_stretches_are_packed_into_one_past_the_limit(
    make_repo: Callable[[str], GitRepo],
    open_genome: Callable[..., Genome],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert MAX_PARTS == 64
    monkeypatch.setattr(commit_times, "MAX_PARTS", 2)
    repo = make_repo("repo")
    genome = open_genome(repo.root)
    for n in range(4):
        repo.commit(f"c{n}", "a.py")
        genome.refresh()
    assert len(_firsts(genome)) <= 2
    times = read_times(genome.conn)
    assert times is not None and list(times[1:]) == _rows(genome)


def test_packed_times_that_lack_commits_are_not_used(
    indexed: tuple[GitRepo, Genome], open_genome: Callable[..., Genome]
) -> None:
    """A refresh by a version that does not pack times adds commits the packed ones lack:
    readers then count from the commit rows, and the next refresh packs the rest."""
    repo, genome = indexed
    genome.conn.execute("DELETE FROM genome_times")
    genome.conn.execute(
        "INSERT INTO genome_times(first, ts) VALUES(1, ?)",
        (commit_times._pack(commit_times.array("q", _rows(genome)[:4])),),
    )
    genome.conn.commit()
    assert read_times(genome.conn) is None
    fresh = open_genome(repo.root)
    assert fresh.commits_touching_many([("a.py", repo.date(5))]) == {("a.py", repo.date(5)): 1}
    fresh.refresh()
    times = read_times(fresh.conn)
    assert times is not None and list(times[1:]) == _rows(fresh)
    assert _firsts(fresh) == [1, 5]


def test_a_full_rebuild_packs_the_times_anew(indexed: tuple[GitRepo, Genome]) -> None:
    genome = indexed[1]
    genome.refresh(full=True)
    assert _firsts(genome) == [1]
    times = read_times(genome.conn)
    assert times is not None and list(times[1:]) == _rows(genome)
