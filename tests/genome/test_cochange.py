"""Co-change, renames and commit counts from a real history with exact expected numbers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from recall.errors import BadInput
from recall.genome import Genome, Neighbour

from .gitrepo import GitRepo

BULK = [f"bulk/f{n:02d}.txt" for n in range(29)]


@pytest.fixture
def history(make_repo: Callable[[str], GitRepo]) -> GitRepo:
    """c0 a,b,c · c1 a,b · c2 a,c · c3 d · c4 bulk of 31 files · c5 a + delete c ·
    c6 rename b → lib/b.py · c7 rename lib/b.py → lib/core.py (edited) + a."""
    repo = make_repo("repo")
    repo.commit("c0", "a.py", "b.py", "c.py")
    repo.commit("c1", "a.py", "b.py")
    repo.commit("c2", "a.py", "c.py")
    repo.commit("c3", "d.py")
    repo.commit("c4 bulk", "a.py", "b.py", *BULK)
    repo.remove("c.py")
    repo.commit("c5", "a.py")
    repo.move("b.py", "lib/b.py")
    repo.commit("c6 move")
    repo.move("lib/b.py", "lib/core.py")
    with open(repo.root / "lib/core.py", "a", encoding="utf-8") as handle:
        handle.write("one more line\n")
    repo.commit("c7 move and edit", "a.py")
    return repo


@pytest.fixture
def genome(history: GitRepo, open_genome: Callable[..., Genome]) -> Genome:
    genome = open_genome(history.root)
    genome.refresh()
    return genome


def test_summary_counts(history: GitRepo, open_genome: Callable[..., Genome]) -> None:
    summary = open_genome(history.root).refresh()
    assert summary.mode == "full"
    assert summary.head == history.head()
    assert summary.commits_read == 8
    assert summary.commits_skipped_large == 1
    assert summary.renames == 2
    # a-b, a-c, b-c from c0..c2, a-c again from c5, a-lib/core.py from c7.
    assert summary.cochange_pairs == 3
    assert summary.notices == []
    assert set(summary.elapsed_ms) >= {"probe", "history", "tree", "write", "total"}


def test_neighbours_exact(genome: Genome) -> None:
    # a.py: eligible commits c0 c1 c2 c5 c7 (c4 is over the cap).
    assert genome.neighbours("a.py", 5) == [Neighbour("lib/core.py", 3, 3 / 5, 5)]
    assert genome.neighbours("a.py", 5, include_missing=True) == [
        Neighbour("c.py", 3, 3 / 5, 5),
        Neighbour("lib/core.py", 3, 3 / 5, 5),
    ]


def test_renamed_file_keeps_its_history(genome: Genome) -> None:
    # lib/core.py was b.py in c0, c1 (and c4, too large), then moved in c6 and c7.
    assert genome.neighbours("lib/core.py", 5, include_missing=True) == [
        Neighbour("a.py", 3, 3 / 4, 4),
        Neighbour("c.py", 1, 1 / 4, 4),
    ]
    assert genome.neighbours("b.py", 5) == []
    assert genome.neighbours("lib/b.py", 5) == []


def test_bulk_commit_is_ignored_for_cochange(genome: Genome) -> None:
    assert genome.neighbours("bulk/f00.txt", 5) == []
    assert genome.neighbours("d.py", 5) == []


def test_limit_and_tie_order(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("ties")
    repo.commit("one", "hub.py", "z.py", "m.py", "a.py")
    genome = open_genome(repo.root)
    genome.refresh()
    names = [n.path for n in genome.neighbours("hub.py", 10)]
    assert names == ["a.py", "m.py", "z.py"]
    assert [n.path for n in genome.neighbours("hub.py", 2)] == ["a.py", "m.py"]
    assert genome.neighbours("hub.py", 0) == []


def test_custom_commit_cap(history: GitRepo, open_genome: Callable[..., Genome]) -> None:
    genome = open_genome(history.root, max_commit_files=2)
    summary = genome.refresh()
    # c0 (3 files) and c4 are now too large; c5 (a + deleted c) and c7 (a, move) remain.
    assert summary.commits_skipped_large == 2
    assert genome.neighbours("a.py", 5, include_missing=True) == [
        Neighbour("c.py", 2, 2 / 4, 4),
        Neighbour("lib/core.py", 2, 2 / 4, 4),
    ]


def test_rename_chains_both_directions(genome: Genome) -> None:
    assert genome.renamed_to("b.py") == "lib/core.py"
    assert genome.renamed_to("lib/b.py") == "lib/core.py"
    assert genome.renamed_to("lib/core.py") is None
    assert genome.renamed_to("a.py") is None
    assert genome.renamed_from("lib/core.py") == ["lib/b.py", "b.py"]
    assert genome.renamed_from("a.py") == []


def test_rename_back_and_forth(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("cycle")
    repo.commit("add", "x.py")
    repo.move("x.py", "y.py")
    repo.commit("to y")
    repo.move("y.py", "x.py")
    repo.commit("back to x")
    genome = open_genome(repo.root)
    genome.refresh()
    assert genome.renamed_to("x.py") is None
    assert genome.renamed_to("y.py") == "x.py"
    assert genome.renamed_from("x.py") == ["y.py"]


def test_commits_touching_by_sha_and_date(history: GitRepo, genome: Genome) -> None:
    first = history.git("rev-list", "--max-parents=0", "HEAD")
    # a.py changed in c1 c2 c4 c5 c7 after c0.
    assert genome.commits_touching("a.py", first) == 5
    assert genome.commits_touching("a.py", first[:8]) == 5
    assert genome.commits_touching("a.py", history.date(5)) == 2
    assert genome.commits_touching("a.py", history.date(5)[:10]) == 6
    assert genome.commits_touching("a.py", history.head()) == 0
    # An old name follows the rename; the identity saw c0 c1 c4 c6 c7.
    assert genome.commits_touching("b.py", history.date(4)) == 3
    assert genome.commits_touching("never.py", first) == 0


def test_commits_touching_many_answers_as_one_by_one(history: GitRepo, genome: Genome) -> None:
    first = history.git("rev-list", "--max-parents=0", "HEAD").strip()
    dates = [history.date(n) for n in (0, 3, 5)] + [history.date(5)[:10]]
    paths = ["a.py", "b.py", "lib/core.py", "never.py"]
    asked = [(path, since) for path in paths for since in dates]
    found = genome.commits_touching_many([*asked, ("a.py", first), ("a.py", "yesterday")])
    # dates answered at once, exactly as one by one; commit ids and bad input left to that
    assert found == {pair: genome.commits_touching(*pair) for pair in asked}
    assert found[("a.py", history.date(5))] == 2


def test_commits_touching_many_reads_renames_only_for_a_name_the_genome_lacks(
    history: GitRepo, genome: Genome, open_genome: Callable[..., Genome]
) -> None:
    since = history.date(3)
    fresh = open_genome(history.root)  # the same index, as the next process opens it
    statements: list[str] = []
    fresh.conn.set_trace_callback(statements.append)
    present = [("a.py", since), ("lib/core.py", since)]
    assert fresh.commits_touching_many(present) == {p: genome.commits_touching(*p) for p in present}
    assert not [s for s in statements if "genome_renames" in s]
    gone = [("b.py", since)]  # renamed away twice: counted as lib/core.py
    assert fresh.commits_touching_many(gone) == {("b.py", since): 3}
    assert [s for s in statements if "genome_renames" in s]


def test_commits_touching_rejects_bad_since(genome: Genome) -> None:
    with pytest.raises(BadInput):
        genome.commits_touching("a.py", "yesterday")
    with pytest.raises(BadInput):
        genome.commits_touching("a.py", "deadbeefdeadbeef")


def test_commits_touching_after_a_merge_commit(
    make_repo: Callable[[str], GitRepo], open_genome
) -> None:
    repo = make_repo("merge")
    repo.commit("base", "a.py")
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("side", "b.py")
    repo.git("checkout", "-q", "main")
    repo.commit("main", "a.py")
    stamp = repo.date(repo.commits)
    repo.git(
        "merge",
        "-q",
        "--no-ff",
        "-m",
        "merge",
        "side",
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp},
    )
    repo.commits += 1
    merge = repo.head()
    repo.commit("after", "a.py")
    genome = open_genome(repo.root)
    genome.refresh()
    # The merge is not indexed (--no-merges); git tells its time instead.
    assert genome.commits_touching("a.py", merge) == 1


def test_neighbour_lists_kept_are_bounded_and_still_right(
    genome: Genome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-lived genome keeps at most NEIGHBOURS_KEPT lists (a server runs for days); past
    that it starts afresh and answers the same."""
    from recall.genome import genome as genome_module
    from recall.genome.limits import NEIGHBOURS_KEPT

    assert NEIGHBOURS_KEPT == 4096
    first = genome.neighbours("a.py", 5, include_missing=True)
    monkeypatch.setattr(genome_module, "NEIGHBOURS_KEPT", 2)
    for path in ("lib/core.py", "d.py", "a.py", "b.py"):
        genome.neighbours(path, 5, include_missing=True)
        assert len(genome._near) <= 2
    assert genome.neighbours("a.py", 5, include_missing=True) == first


def test_memory_files_committed_with_the_code_are_no_neighbours_of_it(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    """Memories are committed with the change they are about, so they change together with
    the code; they are Tether's own files, not the project's, and no neighbour."""
    repo = make_repo("repo")
    for n in range(3):
        repo.commit(f"change {n}", "src/app.py", "src/util.py", f".tether/memories/0000000{n}.md")
    genome = open_genome(repo.root)
    genome.refresh()
    assert [n.path for n in genome.neighbours("src/app.py", 10)] == ["src/util.py"]
    assert [n.path for n in genome.neighbours("src/app.py", 10, include_missing=True)] == [
        "src/util.py"
    ]
