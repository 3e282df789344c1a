"""Rename chains answered name by name before the whole rename table is read."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from recall.genome import Genome
from recall.genome.renames import LOOKUPS_MAX, NotKept, RenameIndex, RenameLookups

from .gitrepo import GitRepo


def _history(seed: int) -> list[tuple[int, str, str]]:
    """Random rename events over a few names, names left, reused and left again."""
    chance = random.Random(seed)
    names = [f"f{i}.c" for i in range(6)]
    rows = []
    for seq in range(chance.randint(0, 25)):
        old, new = chance.sample(names, 2)
        rows.append((seq, old, new))
    return rows


def _lookups_over(rows: list[tuple[int, str, str]]) -> RenameLookups:
    def read(column: str, name: str) -> list[tuple[int, str]]:
        at = 1 if column == "old" else 2
        return [(row[0], row[3 - at]) for row in rows if row[at] == name]

    return RenameLookups(read, state=None)


def test_lookups_follow_chains_as_the_index_does() -> None:
    for seed in range(300):
        rows = _history(seed)
        index, lookups = RenameIndex(rows), _lookups_over(rows)
        for name in [f"f{i}.c" for i in range(7)]:
            assert lookups.forward(name) == index.forward(name), (seed, name)
            assert lookups.backward(name) == index.backward(name), (seed, name)


def test_a_name_is_read_once() -> None:
    lookups = _lookups_over([(1, "a.c", "b.c"), (2, "b.c", "c.c")])
    assert lookups.forward("a.c") == "c.c"
    reads = lookups.reads
    assert lookups.forward("a.c") == "c.c"
    assert lookups.reads == reads == 3  # a.c, b.c, c.c


def test_lookups_bound() -> None:
    # 64 name scans cost about one read of a 3,380-rename table (0.6 against 8 ms)
    assert LOOKUPS_MAX == 64


def test_genome_answers_renames_without_the_whole_table(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "src/a.py", "src/b.py")
    repo.move("src/a.py", "src/c.py")
    repo.commit("two")
    repo.move("src/c.py", "lib/d.py")
    repo.commit("three")
    genome = open_genome(repo.root)
    genome.refresh()
    assert genome.renamed_to("src/a.py") == "lib/d.py"
    assert genome.renamed_from("lib/d.py") == ["src/c.py", "src/a.py"]
    assert genome.renamed_to("src/b.py") is None
    assert genome._renames is None  # the whole table was not read for three names
    whole = open_genome(repo.root)
    index = whole._rename_index()
    for path in ("src/a.py", "src/c.py", "lib/d.py", "src/b.py"):
        assert genome.renamed_to(path) == index.forward(path)
        assert genome.renamed_from(path) == index.backward(path)


def test_genome_reads_the_whole_table_past_the_bound(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "src/a.py")
    repo.move("src/a.py", "src/b.py")
    repo.commit("two")
    genome = open_genome(repo.root)
    genome.refresh()
    for number in range(LOOKUPS_MAX):
        assert genome.renamed_to(f"never/{number}.py") is None
    assert genome._renames is None
    assert genome.renamed_to("src/a.py") == "src/b.py"
    assert genome._renames is not None


def test_kept_only_answers_from_kept_names_and_reads_nothing() -> None:
    lookups = _lookups_over([(1, "a.c", "b.c"), (2, "b.c", "c.c")])
    assert lookups.forward("a.c") == "c.c"
    kept = lookups.kept_only()
    assert kept.forward("a.c") == kept.forward("b.c") == "c.c"
    assert lookups.reads == 3
    with pytest.raises(NotKept):
        kept.backward("c.c")  # the names taken were never read
    with pytest.raises(NotKept):
        kept.forward("z.c")
    assert lookups.reads == 3
