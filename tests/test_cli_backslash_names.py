"""A file name holding a backslash (Linux allows one, git tracks it) is named with it: the
backslash is read as Windows' separator only in a name that no file on disk or in git has."""

from __future__ import annotations

from pathlib import Path

from conftest import git, make_repo, run_tether


def _files(repo: Path, *args: str) -> list[str]:
    summary = f"a note on {args[1]}"
    done = run_tether("remember", summary, "-c", "gotcha", *args, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    shown = run_tether("show", done.json()["id"], "--json", cwd=repo)
    return list(shown.json()["files"])


def test_a_name_with_a_backslash_on_disk_is_kept(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"win\\path.py": "x = 1\n"})
    assert _files(repo, "-f", "win\\path.py") == ["win\\path.py"]


def test_a_tracked_name_with_a_backslash_gone_from_disk_is_kept(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"gone\\x.py": "x = 1\n", "a.py": "y = 2\n"})
    (repo / "gone\\x.py").unlink()
    assert git(repo, "ls-files", "-z").split("\0")[1] == "gone\\x.py"
    assert _files(repo, "-f", "gone\\x.py") == ["gone\\x.py"]


def test_a_name_no_file_has_still_reads_the_backslash_as_a_separator(repo: Path) -> None:
    assert _files(repo, "-f", "src\\app.py") == ["src/app.py"]
    assert _files(repo, "-f", "later\\new.py", "--allow-missing") == ["later/new.py"]
