"""`tether neighbours` and `tether fanin` asked about an old name of a renamed file name the
file's name now, and how to ask about it."""

from __future__ import annotations

from pathlib import Path

from conftest import git, make_repo, run_tether


def test_neighbours_and_fanin_of_an_old_name_name_the_file_now(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"old.py": "def f():\n    return 'a body long enough'\n"})
    git(root, "mv", "old.py", "new.py")
    git(root, "commit", "-q", "-m", "rename")
    run_tether("index", cwd=root)
    near = run_tether("neighbours", "old.py", cwd=root)
    assert near.code == 1
    assert "renamed to new.py: `tether neighbours new.py`" in near.stderr
    assert run_tether("neighbours", "old.py", "--json", cwd=root).json()["renamed_to"] == "new.py"
    fan = run_tether("fanin", "old.py", cwd=root)
    assert fan.code == 1
    assert "renamed to new.py: `tether fanin new.py`" in fan.stderr
    assert run_tether("fanin", "old.py", "--json", cwd=root).json()["renamed_to"] == "new.py"
    plain = run_tether("fanin", "never.py", "--json", cwd=root).json()
    assert "renamed_to" not in plain
