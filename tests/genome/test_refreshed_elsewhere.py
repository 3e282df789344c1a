"""A long-lived genome (the language server's) notices a refresh another process made in the
shared index, and forgets what it kept from before."""

from __future__ import annotations

from collections.abc import Callable

from recall.genome import Genome

from .gitrepo import GitRepo


def _long_lived(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome], *files: str
) -> tuple[GitRepo, Genome]:
    """A repository whose first commit adds ``files``, and a long-lived genome of it (the
    language server's) in an index other processes share, refreshed."""
    repo = make_repo("repo")
    repo.commit("start", *files)
    mine = open_genome(repo.root, db="shared")
    mine.refresh()
    return repo, mine


def test_a_refresh_made_on_another_connection_is_noticed_once(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo, mine = _long_lived(make_repo, open_genome, "a.py", "b.py")
    assert not mine.refreshed_elsewhere()  # nothing read yet: nothing kept can be old
    before = mine.state_token()
    assert not mine.refreshed_elsewhere()
    repo.commit("more", "a.py")
    other = open_genome(repo.root, db="shared")  # a hook, in another process
    other.refresh()
    assert mine.refreshed_elsewhere()
    assert mine.state_token() != before
    assert mine.state_token() == other.state_token()
    assert not mine.refreshed_elsewhere()


def test_a_closed_connection_is_no_refresh(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("start", "a.py")
    genome = open_genome(repo.root)
    genome.refresh()
    genome.state_token()
    genome.conn.close()  # an index replaced under it; the next recall rebinds the genome
    assert not genome.refreshed_elsewhere()


def test_neighbours_kept_between_refreshes_follow_a_refresh_made_elsewhere(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo, mine = _long_lived(make_repo, open_genome, "a.py", "b.py")
    assert [n.path for n in mine.neighbours("a.py", 5)] == ["b.py"]
    repo.commit("a with c", "a.py", "c.py")
    repo.commit("again", "a.py", "c.py")
    other = open_genome(repo.root, db="shared")  # a hook, in another process
    other.refresh()
    assert mine.refreshed_elsewhere()
    assert [(n.path, n.support) for n in mine.neighbours("a.py", 5)] == [
        ("c.py", 2),
        ("b.py", 1),
    ]


def test_neighbours_kept_are_not_changed_by_a_caller(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("start", "a.py", "b.py")
    genome = open_genome(repo.root)
    genome.refresh()
    genome.neighbours("a.py", 5).clear()
    assert [n.path for n in genome.neighbours("a.py", 5)] == ["b.py"]


def _refreshed_elsewhere_with_new_neighbours(
    repo: GitRepo, open_genome: Callable[..., Genome]
) -> None:
    """Two commits give a.py a stronger neighbour; another process (a hook) indexes them."""
    repo.commit("a with c", "a.py", "c.py")
    repo.commit("again", "a.py", "c.py")
    open_genome(repo.root, db="shared").refresh()


def test_a_new_question_after_a_refresh_elsewhere_forgets_the_answers_of_before(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    """The neighbours of a file not asked before are read in the index's state of now, and
    what was kept from the state before goes with it: answers kept together, as one recall
    uses them, never belong to two states."""
    repo, mine = _long_lived(make_repo, open_genome, "a.py", "b.py", "d.py")
    assert [n.path for n in mine.neighbours("a.py", 5)] == ["b.py", "d.py"]
    _refreshed_elsewhere_with_new_neighbours(repo, open_genome)
    assert [n.path for n in mine.neighbours("d.py", 5)] == ["a.py", "b.py"]
    assert [(n.path, n.support) for n in mine.neighbours("a.py", 5)] == [
        ("c.py", 2),
        ("b.py", 1),
        ("d.py", 1),
    ]
    assert mine.refreshed_elsewhere()  # told once, though a question noticed it first
    assert not mine.refreshed_elsewhere()


def test_a_rename_asked_after_a_refresh_elsewhere_forgets_the_answers_of_before(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    """The same for a rename looked up name by name: its state is taken as the genome's."""
    repo, mine = _long_lived(make_repo, open_genome, "a.py", "b.py")
    assert [n.path for n in mine.neighbours("a.py", 5)] == ["b.py"]
    repo.move("b.py", "e.py")
    repo.commit("b is e now")
    _refreshed_elsewhere_with_new_neighbours(repo, open_genome)
    assert mine.renamed_to("b.py") == "e.py"
    assert [(n.path, n.support) for n in mine.neighbours("a.py", 5)] == [
        ("c.py", 2),
        ("e.py", 1),
    ]
    assert mine.refreshed_elsewhere()
