"""The commits' times packed for drift counts: filled by every refresh, read in one statement,
and never needed for a right answer (a reader without them reads the commits' rows)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from recall.genome import Genome, commit_counts, commit_times, history_write, refresh
from recall.genome.commit_counts import PACKED_FROM_SHARE
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


def _rewrite(repo: GitRepo) -> None:
    """Everything after the first commit replaced by five other commits, dated days later:
    as many commits as before, none with the same time."""
    repo.git("reset", "-q", "--hard", repo.git("rev-list", "--max-parents=0", "HEAD"))
    repo.commits = 100
    for n in range(5):
        repo.commit(f"r{n}", "a.py")


def test_a_refresh_by_a_version_without_packed_times_voids_them(
    indexed: tuple[GitRepo, Genome],
    open_genome: Callable[..., Genome],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An older version rebuilds the genome of a rewritten history and leaves the packed times
    as they were: they are not used, and the next refresh packs every commit anew."""
    repo, genome = indexed
    _rewrite(repo)
    with monkeypatch.context() as older:
        older.setattr(refresh, "write_times", lambda *args: None)
        older.setattr(history_write, "clear_times", lambda conn: None)
        assert genome.refresh().mode == "full"
    assert len(_rows(genome)) == 6  # as many commits as the stale packed times hold
    assert read_times(genome.conn) is None
    since = [("a.py", repo.date(100)), ("a.py", repo.date(0))]
    expected = {since[0]: 5, since[1]: 6}
    assert open_genome(repo.root).commits_touching_many(since) == expected
    genome.refresh()
    times = read_times(genome.conn)
    assert times is not None and list(times[1:]) == _rows(genome)
    assert open_genome(repo.root).commits_touching_many(since) == expected


def test_a_commit_indexed_after_the_times_were_read_is_counted(
    indexed: tuple[GitRepo, Genome], open_genome: Callable[..., Genome]
) -> None:
    repo = indexed[0]
    reader = open_genome(repo.root)
    assert reader.commits_touching_many([("a.py", repo.date(0))]) == {("a.py", repo.date(0)): 6}
    repo.commits = 10
    repo.commit("c6", "d.py", "a.py")
    open_genome(repo.root).refresh()  # another process indexes it
    statements: list[str] = []
    reader.conn.set_trace_callback(statements.append)
    # (a.py's times stay as this genome read them until it notices the refresh)
    assert reader.commits_touching_many([("d.py", repo.date(0))]) == {("d.py", repo.date(0)): 1}
    assert [s for s in statements if "genome_times" in s]  # the packed times read again
    assert not [s for s in statements if "genome_commits WHERE seq IN" in s]


def test_a_long_lived_genome_forgets_the_times_when_another_process_rebuilds(
    indexed: tuple[GitRepo, Genome],
    open_genome: Callable[..., Genome],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server's genome read the times; an older version's process then rebuilds a rewritten
    history (voiding them), and this version's refresh packs it: each time, once the genome
    has noticed the refresh, its counts are those of the commit rows."""
    repo = indexed[0]
    reader = open_genome(repo.root)
    since = [("a.py", repo.date(100)), ("a.py", repo.date(0))]
    assert reader.commits_touching_many(since) == {since[0]: 0, since[1]: 6}
    _rewrite(repo)
    with monkeypatch.context() as older:
        older.setattr(refresh, "write_times", lambda *args: None)
        older.setattr(history_write, "clear_times", lambda conn: None)
        open_genome(repo.root).refresh()
    assert reader.refreshed_elsewhere()
    assert reader.commits_touching_many(since) == {since[0]: 5, since[1]: 6}
    open_genome(repo.root).refresh()  # this version packs the rewritten history
    assert reader.refreshed_elsewhere()
    statements: list[str] = []
    reader.conn.set_trace_callback(statements.append)
    assert reader.commits_touching_many([("a.py", repo.date(101))]) == {("a.py", repo.date(101)): 4}
    assert [s for s in statements if "genome_times" in s]


def test_a_file_with_few_of_a_long_history_commits_reads_their_rows(
    indexed: tuple[GitRepo, Genome],
    open_genome: Callable[..., Genome],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert PACKED_FROM_SHARE == 64
    repo = indexed[0]
    monkeypatch.setattr(commit_counts, "PACKED_FROM_SHARE", 4)  # "long": 4 times c.py's one
    reader = open_genome(repo.root)
    statements: list[str] = []
    reader.conn.set_trace_callback(statements.append)
    assert reader.commits_touching_many([("c.py", repo.date(0))]) == {("c.py", repo.date(0)): 1}
    assert [s for s in statements if "genome_commits WHERE seq IN" in s]
    assert not [s for s in statements if "genome_times" in s]
    statements.clear()
    assert reader.commits_touching_many([("a.py", repo.date(1))]) == {("a.py", repo.date(1)): 5}
    assert [s for s in statements if "genome_times" in s]
    assert not [s for s in statements if "genome_commits WHERE seq IN" in s]


def test_a_full_rebuild_of_a_rewritten_history_packs_the_times_anew(
    indexed: tuple[GitRepo, Genome],
) -> None:
    repo, genome = indexed
    before = _rows(genome)
    _rewrite(repo)
    genome.refresh(full=True)
    assert _firsts(genome) == [1]
    times = read_times(genome.conn)
    assert times is not None and list(times[1:]) == _rows(genome) != before


def test_times_refused_while_an_older_refresh_voids_them_are_read_once_packed_again(
    indexed: tuple[GitRepo, Genome],
    open_genome: Callable[..., Genome],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = indexed[0]
    reader = open_genome(repo.root)
    assert reader.commits_touching_many([("a.py", repo.date(0))]) == {("a.py", repo.date(0)): 6}
    repo.commits = 10
    repo.commit("c6", "d.py")
    with monkeypatch.context() as older:
        older.setattr(refresh, "write_times", lambda *args: None)
        open_genome(repo.root).refresh()
    # the count takes the refreshed state, whose times are no longer vouched for
    assert reader.commits_touching_many([("d.py", repo.date(0))]) == {("d.py", repo.date(0)): 1}
    assert reader.refreshed_elsewhere()  # told once, though the count noticed it first
    assert not reader.refreshed_elsewhere()
    repo.commit("c7", "e.py")
    open_genome(repo.root).refresh()
    assert reader.refreshed_elsewhere()
    statements: list[str] = []
    reader.conn.set_trace_callback(statements.append)
    assert reader.commits_touching_many([("e.py", repo.date(0))]) == {("e.py", repo.date(0)): 1}
    assert [s for s in statements if "genome_times" in s]


def test_counts_follow_a_rebuild_of_a_shorter_rewritten_history_not_yet_noticed(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    """A long-lived genome read the packed times; another process then rebuilds a rewritten,
    shorter history, whose commit numbers are those of other commits than before. The next
    counts are the rebuilt genome's, without waiting for anything else to notice it."""
    repo = make_repo("repo")
    for n in range(10):
        repo.commit(f"h{n}", "hub.py")
    for n in range(10, 20):
        repo.commit(f"o{n}", f"o{n}.py")
    open_genome(repo.root).refresh()
    reader = open_genome(repo.root)
    hub = ("hub.py", repo.date(0))
    assert reader.commits_touching_many([hub]) == {hub: 10}
    repo.git("reset", "-q", "--hard", "HEAD~5")
    repo.commits = 500
    repo.commit("new", "new.py")
    assert open_genome(repo.root).refresh().mode == "full"  # another process
    new = ("new.py", repo.date(400))
    assert reader.commits_touching_many([new, hub]) == {new: 1, hub: 10}
