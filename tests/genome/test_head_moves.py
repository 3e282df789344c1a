"""What a refresh says when HEAD moved in a way an incremental read cannot follow: back to an
earlier commit (no rewrite), onto another line of history, or onto a branch with no commits
in a repository that has some. Real repositories."""

from __future__ import annotations

from collections.abc import Callable

from recall.genome import Genome

from .gitrepo import GitRepo


def test_a_checkout_of_an_earlier_commit_is_said_as_such(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "a.py", "b.py")
    repo.commit("two", "a.py", "c.py")
    repo.commit("three", "a.py", "d.py")
    last = repo.head()
    genome = open_genome(repo.root)
    genome.refresh()
    repo.git("checkout", "-q", "HEAD~2")
    summary = genome.refresh()
    assert summary.mode == "full"
    assert summary.commits_read == 1
    assert summary.notices[-1] == (
        f"HEAD is now an earlier commit than the indexed {last[:12]} (a checkout or reset "
        "back): history indexed again from scratch, up to HEAD"
    )
    assert not any("rewritten" in notice for notice in summary.notices)


def test_another_line_of_history_says_it_may_be_a_rewrite_or_a_branch(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "a.py")
    repo.git("branch", "-q", "side")
    repo.commit("two", "a.py", "b.py")
    last = repo.head()
    genome = open_genome(repo.root)
    genome.refresh()
    repo.git("checkout", "-q", "side")
    repo.commit("three", "a.py", "c.py")
    summary = genome.refresh()
    assert summary.mode == "full"
    assert summary.notices == [
        f"indexed commit {last[:12]} is no longer an ancestor of HEAD (history rewritten, or "
        "another branch checked out): history indexed again from scratch"
    ]


def test_an_orphan_branch_has_no_commits_yet_not_the_repository(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "a.py", "b.py")
    repo.git("gc", "-q")  # the branch in packed-refs too
    repo.git("checkout", "-q", "--orphan", "fresh")
    repo.git("rm", "-rfq", ".")
    genome = open_genome(repo.root)
    summary = genome.refresh()
    assert summary.mode == "empty"
    assert summary.notices == [
        "the branch fresh has no commits yet: no co-change or renames until its first"
    ]


def test_a_project_in_a_subfolder_follows_commits_made_outside_it(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "app/a.py", "app/b.py", "other/x.py")
    genome = open_genome(repo.root / "app")
    genome.refresh()
    repo.commit("outside only", "other/x.py")
    summary = genome.refresh()
    assert (summary.mode, summary.notices) == ("incremental", [])
    repo.commit("outside again", "other/x.py")
    repo.commit("inside", "app/a.py", "app/c.py")
    summary = genome.refresh()
    assert (summary.mode, summary.notices, summary.commits_read) == ("incremental", [], 1)
    assert genome.exists("c.py")
    assert {n.path for n in genome.neighbours("a.py", 3)} == {"b.py", "c.py"}
    last = repo.head()
    repo.git("reset", "-q", "--hard", "HEAD~1")  # back to a commit outside the folder
    summary = genome.refresh()
    assert summary.notices == [
        f"HEAD is now an earlier commit than the indexed {last[:12]} (a checkout or reset "
        "back): history indexed again from scratch, up to HEAD"
    ]
    assert not genome.exists("c.py")
