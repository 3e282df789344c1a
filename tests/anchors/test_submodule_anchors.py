"""A file in a submodule's work tree is a file of the repository: an anchor there is read from
the working tree by ``show`` and ``doctor`` (git lists none of a submodule's files, so the
symbol index holds none of them), and ``tether check`` reads a submodule pointed at another
commit as the change of the files in it, or, when that commit is not here, says which memories
it could not check."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo, run_tether

ANCHOR = "vend/sub/s.py::s"
EDITED = 'def s():\n    import os; os.system("x")\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository holding the submodule vend/sub, whose s.py defines ``s``."""
    sub = make_repo(tmp_path / "sub", {"s.py": "def s():\n    return 1\n"})
    top = make_repo(tmp_path / "repo", {"top.py": "x = 1\n"})
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.as_uri(), "vend/sub")
    git(top, "commit", "-q", "-m", "add the submodule")
    return top


def guarded(repo: Path, cli: Callable[..., CliResult], *what: str) -> tuple[str, str]:
    """A guarded memory about ``what``, committed: its id, and the commit that holds it."""
    assert cli("index").code == 0
    made = cli("remember", "s must stay pure", "-c", "gotcha", "--guard", "--json", *what)
    assert made.code == 0, made.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the memory")
    return made.json()["id"], git(repo, "rev-parse", "HEAD").strip()


def bump(repo: Path) -> None:
    """Edit ``s`` in the submodule, commit it there and point the repository at it."""
    sub = repo / "vend/sub"
    (sub / "s.py").write_text(EDITED)
    git(sub, "commit", "-q", "-am", "edit s")
    git(repo, "add", "vend/sub")
    git(repo, "commit", "-q", "-m", "bump the submodule")


def test_show_and_doctor_read_an_anchor_in_a_submodule(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory, _ = guarded(repo, cli, "--anchor", ANCHOR)
    shown = cli("show", memory)
    assert shown.stdout.splitlines()[-1] == f"symbol {ANCHOR}: current at vend/sub/s.py:1-2"
    [state] = cli("--json", "show", memory).json()["anchor_states"]
    assert state["state"] == "current"
    doctor = cli("doctor")
    assert (doctor.code, doctor.stdout.strip()) == (0, "No problems found."), doctor.stdout
    bump(repo)
    assert "changed at vend/sub/s.py:1-2" in cli("show", memory).stdout


@pytest.mark.parametrize("what", [("--anchor", ANCHOR), ("-f", "vend/sub/s.py")])
def test_check_reads_a_submodule_pointed_at_another_commit(
    repo: Path, cli: Callable[..., CliResult], what: tuple[str, str]
) -> None:
    memory, base = guarded(repo, cli, *what)
    bump(repo)
    checked = cli("--json", "check", "--base", base)
    assert checked.code == 1, checked.stdout
    [failure] = checked.json()["failures"]
    assert (failure["id"], failure["path"]) == (memory, "vend/sub/s.py")
    assert "the change edits" in failure["reason"]


def test_check_reads_a_submodule_moved_and_not_staged(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory, _ = guarded(repo, cli, "--anchor", ANCHOR)
    sub = repo / "vend/sub"
    (sub / "s.py").write_text(EDITED)
    git(sub, "commit", "-q", "-am", "edit s")
    checked = cli("check")
    assert checked.code == 1, checked.stdout
    assert f"FAIL   vend/sub/s.py:1  {memory}" in checked.stdout


def test_check_says_a_memory_in_a_submodule_not_here_is_unchecked(
    repo: Path, tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    guarded_id, base = guarded(repo, cli, "--anchor", ANCHOR)
    told = cli("remember", "s is called once", "-c", "gotcha", "-f", "vend/sub/s.py", "--json")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "another memory")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))  # the submodule not checked out
    missing = "1" * 40
    git(clone, "update-index", "--cacheinfo", f"160000,{missing},vend/sub")
    git(clone, "commit", "-q", "-m", "point at a commit not fetched")
    checked = run_tether("--json", "check", "--base", base, cwd=clone)
    assert checked.code == 1, checked.stdout
    found = checked.json()
    [failure] = found["failures"]
    [review] = found["review"]
    assert (failure["id"], review["id"]) == (guarded_id, told.json()["id"])
    assert failure["path"] == "vend/sub/s.py"
    assert f"submodule vend/sub at commit {missing[:12]}" in failure["reason"]
    assert "cannot be told" in failure["reason"]
    assert "git submodule update --init vend/sub" in failure["reason"]


def test_check_finds_the_submodule_among_more_deleted_paths_than_it_names_to_git(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    """A change deleting more files than :data:`PATHSPEC_MAX` reads git's whole raw diff
    (a command line naming them all could be refused) and still finds the moved submodule."""
    from recall.anchors.submodules import PATHSPEC_MAX

    many = repo / "many"
    many.mkdir()
    for number in range(PATHSPEC_MAX + 20):
        (many / f"f{number}.txt").write_text(f"{number}\n")
    git(repo, "add", "many")
    git(repo, "commit", "-q", "-m", "many files")
    memory, base = guarded(repo, cli, "--anchor", ANCHOR)
    git(repo, "rm", "-q", "-r", "many")
    git(repo, "commit", "-q", "-m", "drop them")
    bump(repo)
    checked = cli("--json", "check", "--base", base)
    assert checked.code == 1, checked.stdout
    [failure] = checked.json()["failures"]
    assert (failure["id"], failure["path"]) == (memory, "vend/sub/s.py")


def test_check_asks_git_once_whether_the_change_confirms_a_guarded_memory(
    repo: Path, tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    """A guarded memory both in a submodule not here and on a file the change edits is told
    unchecked and checked with one answer to whether the change confirms it: its file at the
    base is read once (``git show BASE:FILE``, counted in git's own trace)."""
    guarded_id, base = guarded(repo, cli, "--anchor", ANCHOR, "-f", "top.py")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))  # the submodule not checked out
    git(clone, "update-index", "--cacheinfo", f"160000,{'1' * 40},vend/sub")
    (clone / "top.py").write_text("x = 2\n")
    git(clone, "commit", "-q", "-am", "edit top.py, point at a commit not fetched")
    trace = tmp_path / "check.trace"

    checked = run_tether(
        "--json", "check", "--base", base, cwd=clone, env={"GIT_TRACE": str(trace)}
    )

    assert checked.code == 1, checked.stdout
    [failure] = checked.json()["failures"]
    assert failure["id"] == guarded_id and "cannot be told" in failure["reason"]
    ran = [line for line in trace.read_text().splitlines() if "built-in: git" in line]
    shows = [line for line in ran if " show " in line and guarded_id in line]
    assert len(shows) == 1, shows
