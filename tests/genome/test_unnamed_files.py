"""File names that are not UTF-8 arriving in an incremental refresh: passed over with a notice,
as the full build passes them over, and never an error for the commands that read the genome."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from conftest import git, run_tether
from conftest import make_repo as make_git_repo

from recall.genome import Genome, Neighbour
from recall.genome.names import UNNAMED_SHOWN, unnamed_notice

from .gitrepo import GitRepo

ODD = b"caf\xe9.py"


def _write_odd(root: Path, name: bytes = ODD, text: bytes = b"x = 1\n") -> None:
    with open(os.path.join(os.fsencode(root), name), "wb") as handle:
        handle.write(text)


def test_incremental_refresh_passes_over_a_name_that_is_not_utf8(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.commit("one", "a.py", "b.py")
    genome = open_genome(repo.root)
    genome.refresh()
    _write_odd(repo.root)
    repo.commit("two", "a.py", "b.py")
    summary = genome.refresh()
    assert summary.mode == "incremental"
    assert summary.commits_read == 1
    assert genome.neighbours("a.py", 3) == [Neighbour("b.py", 2, 1.0, 2)]
    assert summary.notices == [unnamed_notice([os.fsdecode(ODD)])]
    assert "'caf\\xe9.py'" in summary.notices[0]


def test_a_file_renamed_from_a_name_that_is_not_utf8_starts_its_history(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    _write_odd(repo.root, text=b"def same():\n    return 'a long enough body'\n")
    repo.commit("one", "a.py")
    genome = open_genome(repo.root)
    genome.refresh()
    repo.git("mv", os.fsdecode(ODD), "good.py")
    repo.commit("two", "a.py")
    assert genome.refresh().mode == "incremental"
    assert genome.neighbours("good.py", 3) == [Neighbour("a.py", 1, 1.0, 1)]


def test_the_notice_spells_out_a_few_names_and_counts_the_rest() -> None:
    names = [os.fsdecode(b"n%d\xe9.py" % i) for i in range(UNNAMED_SHOWN + 2)]
    notice = unnamed_notice(names)
    assert notice.startswith(f"{UNNAMED_SHOWN + 2} file names are not valid UTF-8")
    assert "'n0\\xe9.py'" in notice
    assert f"'n{UNNAMED_SHOWN - 1}\\xe9.py'" in notice
    assert f"'n{UNNAMED_SHOWN}\\xe9.py'" not in notice
    assert "and 2 more" in notice
    assert UNNAMED_SHOWN == 3


def test_commands_read_the_genome_after_a_commit_of_such_a_name(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", {"a.py": "a = 1\n"})
    assert run_tether("index", cwd=root).code == 0
    commands = (("index",), ("recall", "-f", "a.py"), ("neighbours", "a.py"), ("fanin", "a.py"))
    for number, args in enumerate(commands):
        odd = b"odd%d\xe9.py" % number
        _write_odd(root, odd)
        (root / "a.py").write_text(f"a = {number}\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"commit {number}")
        done = run_tether(*args, cwd=root)
        assert "Error" not in done.stderr
        assert "not valid UTF-8" in done.stderr
        # recall and neighbours find nothing here, and say so with exit 1
        assert done.code == (1 if args[0] in ("recall", "neighbours") else 0), done.stderr
