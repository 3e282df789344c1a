"""``tether check`` of a change that moves a submodule to another folder or removes it: each
file of the submodule moves or goes with it, as the files of a plain folder do, whether git's
diff pairs the move as a rename (its commit kept) or as a removal and an addition (its commit
changed too); without the submodule's commits, what became of a file is still said when it is
known (removed, or moved with its commit)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo, run_tether

ANCHOR = "vend/sub/s.py::s"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository holding the submodule vend/sub, whose s.py defines ``s``."""
    sub = make_repo(tmp_path / "sub", {"s.py": "def s():\n    return 1\n"})
    top = make_repo(tmp_path / "repo", {"top.py": "x = 1\n"})
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.as_uri(), "vend/sub")
    git(top, "commit", "-q", "-m", "add the submodule")
    return top


def guarded(cli: Callable[..., CliResult], repo: Path, *what: str) -> str:
    """A guarded memory about ``what``, committed: its id."""
    made = cli("remember", "s must stay pure", "-c", "gotcha", "--guard", "--json", *what)
    assert made.code == 0, made.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the memory")
    return made.json()["id"]


def move(repo: Path) -> None:
    """``git mv vend/sub third/sub``."""
    (repo / "third").mkdir()
    git(repo, "mv", "vend/sub", "third/sub")


@pytest.mark.parametrize(
    ("what", "said"),
    [
        (("-f", "vend/sub/s.py"), "the change moves vend/sub/s.py to third/sub/s.py"),
        (
            ("--anchor", ANCHOR),
            "the change moves vend/sub/s.py (anchored symbol s) to third/sub/s.py",
        ),
    ],
)
def test_check_fails_a_guarded_memory_on_a_file_of_a_submodule_moved(
    repo: Path, cli: Callable[..., CliResult], what: tuple[str, str], said: str
) -> None:
    memory = guarded(cli, repo, *what)
    move(repo)
    checked = cli("--json", "check")
    assert checked.code == 1, checked.stdout
    [failure] = checked.json()["failures"]
    assert (failure["id"], failure["path"]) == (memory, "third/sub/s.py")
    assert failure["reason"].startswith(said), failure["reason"]
    git(repo, "commit", "-q", "-m", "move the submodule")
    committed = cli("--json", "check", "--base", "HEAD~1")
    assert committed.code == 1, committed.stdout
    [failure] = committed.json()["failures"]
    assert failure["reason"].startswith(said), failure["reason"]


def test_check_follows_a_submodule_moved_and_pointed_at_another_commit(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    """Git cannot pair the move of a submodule whose commit changed too (it shows a removal
    and an addition): the two are one submodule by the name ``.gitmodules`` gives it."""
    memory = guarded(cli, repo, "-f", "vend/sub/s.py")
    move(repo)
    sub = repo / "third/sub"
    (sub / "s.py").write_text("def s():\n    return 2\n")
    git(sub, "commit", "-q", "-am", "edit s")
    git(repo, "add", "third/sub")
    assert "\nD\tvend/sub" in "\n" + git(repo, "diff", "-M", "--name-status", "HEAD")
    checked = cli("--json", "check")
    assert checked.code == 1, checked.stdout
    [failure] = checked.json()["failures"]
    assert (failure["id"], failure["path"], failure["line"]) == (memory, "third/sub/s.py", 2)
    assert failure["reason"].startswith("the change moves vend/sub/s.py to third/sub/s.py")


def test_a_memory_repointed_with_the_move_passes(repo: Path, cli: Callable[..., CliResult]) -> None:
    """The file moved unchanged, the memory naming its new name: the guard holds, as for a
    plain file renamed."""
    memory = guarded(cli, repo, "-f", "vend/sub/s.py")
    move(repo)
    path = repo / ".tether/memories" / f"{memory}.md"
    path.write_text(path.read_text().replace("vend/sub/s.py", "third/sub/s.py"))
    checked = cli("--json", "check")
    assert checked.code == 0, checked.stdout
    assert checked.json()["failures"] == []


def test_check_says_a_removed_submodule_deletes_its_files(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory = guarded(cli, repo, "-f", "vend/sub/s.py")
    git(repo, "rm", "-q", "vend/sub")
    checked = cli("--json", "check")
    assert checked.code == 1, checked.stdout
    [failure] = checked.json()["failures"]
    assert (failure["id"], failure["path"]) == (memory, "vend/sub/s.py")
    assert failure["reason"].startswith(
        "the change removes submodule vend/sub, and with it vend/sub/s.py, under a guarded memory"
    ), failure["reason"]
    assert "submodule update" not in failure["reason"]
    assert "4b825dc642cb" not in failure["reason"]


@pytest.mark.parametrize("change", ["move", "remove"])
def test_without_the_submodule_a_move_or_removal_is_still_said(
    repo: Path, tmp_path: Path, cli: Callable[..., CliResult], change: str
) -> None:
    """A clone that never checked the submodule out has none of its commits: what a move
    that keeps the commit, or a removal, does to a file of it is known all the same."""
    memory = guarded(cli, repo, "-f", "vend/sub/s.py")
    if change == "move":
        move(repo)
    else:
        git(repo, "rm", "-q", "vend/sub")
    git(repo, "commit", "-q", "-m", change)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    checked = run_tether("--json", "check", "--base", "HEAD~1", cwd=clone)
    assert checked.code == 1, checked.stdout
    [failure] = checked.json()["failures"]
    said = {
        "move": "the change moves submodule vend/sub to third/sub, and with it vend/sub/s.py "
        "to third/sub/s.py, under a guarded memory",
        "remove": "the change removes submodule vend/sub, and with it vend/sub/s.py, under a "
        "guarded memory",
    }[change]
    assert failure["id"] == memory and failure["reason"].startswith(said), failure["reason"]
