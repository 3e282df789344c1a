"""A rename chain read name by name sees one state of the rename table, even when another
connection refreshes the genome between two of its names."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from recall.genome import Genome
from recall.genome.renames import RenameIndex

from .gitrepo import GitRepo

LOOKUP = "FROM genome_renames WHERE"
"""What each name's statement reads (the whole table's read has no WHERE)."""


def _two_histories(make_repo: Callable[[str], GitRepo]) -> GitRepo:
    """A repository on branch ``one``, and a branch ``two``: a history rewritten from the same
    root, whose commits a full refresh numbers otherwise.

    one: a.py → b.py → c.py, n.py → m.py.
    two: a.py → x.py; b.py → c.py → e.py; p.py → n.py → q.py.
    A chain joining the two answers what neither does: a.py read in ``one`` then b.py and
    c.py in ``two`` ends at e.py; p.py read in ``two`` then n.py kept from ``one`` ends at n.py.
    """
    repo = make_repo("repo")
    root = repo.commit("root", "README")
    repo.git("checkout", "-q", "-b", "two")
    repo.commit("add", "a.py", "b.py", "p.py")
    repo.move("a.py", "x.py")
    repo.commit("a to x")
    repo.move("b.py", "c.py")
    repo.move("p.py", "n.py")
    repo.commit("b to c, p to n")
    repo.move("c.py", "e.py")
    repo.move("n.py", "q.py")
    repo.commit("c to e, n to q")
    repo.git("checkout", "-q", "-b", "one", root)
    repo.commit("add", "a.py", "n.py")
    repo.move("a.py", "b.py")
    repo.move("n.py", "m.py")
    repo.commit("a to b, n to m")
    repo.move("b.py", "c.py")
    repo.commit("b to c")
    return repo


def _whole(conn: sqlite3.Connection) -> RenameIndex:
    """The rename table as it is now, read in one statement."""
    rows = conn.execute("SELECT seq, old, new FROM genome_renames ORDER BY seq, rowid")
    return RenameIndex([(row[0], row[1], row[2]) for row in rows])


def _answers(index: RenameIndex, path: str) -> tuple[str | None, list[str]]:
    return index.forward(path), index.backward(path)


def test_a_refresh_between_two_names_is_not_seen_by_the_chain(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = _two_histories(make_repo)
    genome = open_genome(repo.root)
    genome.refresh()
    before = _whole(genome.conn)
    other = open_genome(repo.root)  # another connection to the same index, as `tether index`
    repo.git("checkout", "-q", "two")
    errors: list[BaseException] = []
    names = 0

    def refresh_at_the_second_name(statement: str) -> None:
        nonlocal names
        if LOOKUP not in statement:
            return
        names += 1
        if names == 2:
            try:
                other.refresh()
            except BaseException as error:  # a trace callback's errors are not raised
                errors.append(error)

    genome.conn.set_trace_callback(refresh_at_the_second_name)
    try:
        moved = genome.renamed_to("a.py")
    finally:
        genome.conn.set_trace_callback(None)
    assert not errors
    assert names >= 2  # the chain was read name by name, and the refresh came within it
    after = _whole(other.conn)
    assert after.forward("a.py") != before.forward("a.py")  # the refresh did change it
    assert moved == before.forward("a.py")  # the state the chain began in, whole
    assert not genome.conn.in_transaction
    assert genome.renamed_to("a.py") == moved  # from the names kept: still that one state
    # a chain needing a name not kept finds the table refreshed, and forgets what it kept
    assert genome.renamed_to("p.py") == after.forward("p.py")
    for path in ("a.py", "b.py", "c.py", "e.py", "x.py", "n.py", "p.py", "q.py", "m.py"):
        assert (genome.renamed_to(path), genome.renamed_from(path)) == _answers(after, path)


def test_names_kept_from_before_a_refresh_elsewhere_are_not_joined_to_later_ones(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = _two_histories(make_repo)
    genome = open_genome(repo.root)
    genome.refresh()
    before = _whole(genome.conn)
    assert genome.renamed_to("n.py") == before.forward("n.py") == "m.py"  # n.py and m.py kept
    repo.git("checkout", "-q", "two")
    other = open_genome(repo.root)
    other.refresh()  # another process; this genome has not noticed it
    after = _whole(genome.conn)
    assert genome.renamed_to("p.py") == after.forward("p.py") == "q.py"
    assert genome.renamed_from("q.py") == after.backward("q.py")


def test_a_chain_read_inside_the_callers_transaction_leaves_it_open(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = _two_histories(make_repo)
    genome = open_genome(repo.root)
    genome.refresh()
    assert genome.renamed_to("a.py") == "c.py"
    assert not genome.conn.in_transaction  # its own read transaction ended
    genome.conn.execute("BEGIN")
    assert genome.renamed_from("c.py") == ["b.py", "a.py"]
    assert genome.conn.in_transaction  # the caller's, still the caller's to end
    genome.conn.execute("COMMIT")


def test_a_genome_that_only_followed_renames_notices_a_refresh_elsewhere(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = _two_histories(make_repo)
    genome = open_genome(repo.root)
    genome.refresh()
    assert genome.renamed_to("a.py") == "c.py"  # its only read: names, one at a time
    repo.git("checkout", "-q", "two")
    open_genome(repo.root).refresh()  # another process

    assert genome.refreshed_elsewhere()  # the names kept belonged to the state before
    assert genome.renamed_to("a.py") == _whole(genome.conn).forward("a.py") == "x.py"
