"""A commit renaming more files than the repository's ``diff.renameLimit`` lets git pair: the
genome's history still follows each file through its rename (Tether asks git for its own
limit, whatever the repository's config says)."""

from __future__ import annotations

from collections.abc import Callable

from recall.genome import Genome

from .gitrepo import GitRepo

MOVED = 4


def test_renames_past_a_low_rename_limit_are_followed(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    names = [f"src/m{i}.py" for i in range(MOVED)]
    repo.commit("start", *names)
    repo.git("config", "diff.renameLimit", "1")  # git alone would pair none of them
    for i, old in enumerate(names):
        text = (repo.root / old).read_text(encoding="utf-8")
        repo.remove(old)
        repo.write(f"lib/n{i}.py", text + "# moved\n")  # edited: only the exhaustive pass pairs it
    repo.commit("move them")
    genome = open_genome(repo.root)
    genome.refresh()
    assert [genome.renamed_to(old) for old in names] == [f"lib/n{i}.py" for i in range(MOVED)]
    assert genome.renamed_from("lib/n0.py") == ["src/m0.py"]
