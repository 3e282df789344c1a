"""A lookup of a file's definitions by their last name part reads those definitions only, in a
genome made now and in one made before the index that serves it (added at its next refresh)."""

from __future__ import annotations

from collections.abc import Callable

from recall.genome import Genome
from recall.genome.symbols import lookup

from .gitrepo import GitRepo

MANY = 400  # definitions in one file: enough that reading them all is another plan


def _plan(genome: Genome) -> str:
    """How SQLite answers :func:`lookup.named_in` (its query plan, one line per step)."""
    query = lookup._SELECT + "WHERE f.path = ? AND s.leaf = ? ORDER BY f.path, s.first_line"
    rows = genome.conn.execute("EXPLAIN QUERY PLAN " + query, ("src/big.py", "fn_7")).fetchall()
    return "\n".join(row[3] for row in rows)


def _repo(make_repo: Callable[[str], GitRepo]) -> GitRepo:
    repo = make_repo("repo")
    repo.write("src/big.py", "".join(f"def fn_{n}():\n    return {n}\n" for n in range(MANY)))
    repo.commit("many definitions")
    return repo


def test_a_lookup_by_leaf_reads_that_leaf_of_the_file_only(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    genome = open_genome(_repo(make_repo).root)
    genome.refresh()
    assert "(key=? AND leaf=?)" in _plan(genome)
    found = lookup.named_in(genome.conn, "src/big.py", "fn_7")
    assert [(d.name, d.first_line, d.last_line) for d in found] == [("fn_7", 15, 16)]


def test_a_genome_made_before_the_index_gets_it_at_its_next_refresh(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = _repo(make_repo)
    genome = open_genome(repo.root)
    genome.refresh()
    with genome.conn:  # as a genome of this schema was made before: the key alone indexed
        genome.conn.execute("DROP INDEX genome_symbols_key_leaf")
        genome.conn.execute("CREATE INDEX genome_symbols_key ON genome_symbols(key)")
    assert "(key=? AND leaf=?)" not in _plan(genome)
    repo.write("src/other.py", "def g():\n    return 0\n")
    repo.commit("another file")
    genome.refresh()
    assert "(key=? AND leaf=?)" in _plan(genome)
    indexes = {
        name
        for (name,) in genome.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'genome_symbols'"
        )
    }
    assert "genome_symbols_key" not in indexes  # covered by the new one: dropped
    assert [d.name for d in lookup.named_in(genome.conn, "src/big.py", "fn_7")] == ["fn_7"]
