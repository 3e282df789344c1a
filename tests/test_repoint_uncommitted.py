"""``tether repoint`` follows the renames of the committed history; a file renamed and not
committed yet is named as such, with what to do, rather than said not to be renamed at all."""

from __future__ import annotations

from pathlib import Path

from conftest import git, run_tether


def _remember(repo: Path) -> str:
    done = run_tether(
        "remember", "app starts here", "-c", "gotcha", "-f", "src/app.py", "--json", cwd=repo
    )
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def test_a_staged_rename_is_named_with_what_to_do(repo: Path) -> None:
    memory = _remember(repo)
    git(repo, "mv", "src/app.py", "src/main.py")
    done = run_tether("repoint", memory, cwd=repo)
    assert done.code == 1
    assert "src/app.py -> src/main.py renamed but not committed" in done.stderr
    assert "repoint follows only committed renames: commit the rename" in done.stderr
    assert f"then run `tether repoint {memory}` again" in done.stderr
    git(repo, "commit", "-q", "-m", "rename")
    done = run_tether("repoint", memory, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    assert done.json()["renamed"] == {"src/app.py": "src/main.py"}


def test_a_file_moved_without_git_is_named_as_deleted_not_committed(repo: Path) -> None:
    memory = _remember(repo)
    (repo / "src" / "app.py").rename(repo / "src" / "main.py")
    done = run_tether("repoint", memory, cwd=repo)
    assert done.code == 1
    assert "src/app.py deleted but not committed" in done.stderr
    assert "stage the rename (`git add` both names) and commit it" in done.stderr


def test_nothing_renamed_is_said_as_before(repo: Path) -> None:
    memory = _remember(repo)
    done = run_tether("repoint", memory, cwd=repo)
    assert done.code == 1
    assert "no file it names was renamed away (src/app.py)" in done.stderr


def test_an_anchored_symbol_moved_in_a_staged_change_is_repointed_before_its_commit(
    repo: Path,
) -> None:
    # the symbol index reads git's index: a move staged for the commit a guard's check runs
    # before is followed, so that the check can pass before the commit is made
    (repo / "src" / "store.py").write_text("def helper():\n    return 42\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "store")
    done = run_tether(
        "remember",
        "helper answers 42",
        "-c",
        "gotcha",
        "--anchor",
        "src/store.py::helper",
        "--json",
        cwd=repo,
    )
    assert done.code == 0, done.stderr
    memory = str(done.json()["id"])
    git(repo, "mv", "src/store.py", "src/sessions.py")
    done = run_tether("repoint", memory, "--apply", "--json", cwd=repo)
    assert done.code == 0, done.stderr
    assert done.json()["symbols_moved"] == {"src/store.py::helper": "src/sessions.py::helper"}
