"""Superseding with ``-f`` and no ``--anchor`` a memory anchored in a file since deleted: the
anchor in the file left out goes, said by name, and ``tether check`` passes on the new memory;
an anchor in a file still named carries over."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo, run_tether

F_PY = "class B:\n    def run(self):\n        return 1\n"
A_PY = "def start():\n    return 2\n"
G_PY = "def keep():\n    return 3\n"


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"f.py": F_PY, "a.py": A_PY, "g.py": G_PY})


def test_an_anchor_in_a_deleted_file_is_dropped_and_said(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    made = run_tether(
        "--json",
        "remember",
        "B.run must stay cheap",
        "-c",
        "gotcha",
        "--anchor",
        "f.py::B.run",
        "--pin",
        cwd=repo,
    )
    assert made.code == 0, made.stderr
    old_id = made.json()["id"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory")
    git(repo, "rm", "-q", "f.py")
    git(repo, "commit", "-q", "-m", "f.py goes")
    assert (
        run_tether("check", "--base", "HEAD~1", cwd=repo).code != 0
    )  # the old memory names a deleted file
    done = run_tether(
        "--json", "supersede", old_id, "start() must stay cheap", "-f", "a.py", cwd=repo
    )
    assert done.code == 0, done.stderr
    assert "f.py::B.run" in done.stderr and "not carried over" in done.stderr
    new = run_tether("--json", "show", done.json()["id"], cwd=repo).json()
    assert new["files"] == ["a.py"]
    assert not new.get("anchors")
    assert new["pinned"] is True
    checked = run_tether("check", "--base", "HEAD~1", cwd=repo)
    assert checked.code == 0, checked.stdout + checked.stderr


def test_an_anchor_in_a_file_still_named_carries_over(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    made = run_tether(
        "--json",
        "remember",
        "both must stay cheap",
        "-c",
        "gotcha",
        "--anchor",
        "f.py::B.run",
        "--anchor",
        "g.py::keep",
        cwd=repo,
    )
    assert made.code == 0, made.stderr
    done = run_tether(
        "--json", "supersede", made.json()["id"], "keep must stay cheap", "-f", "g.py", cwd=repo
    )
    assert done.code == 0, done.stderr
    assert "f.py::B.run" in done.stderr
    new = run_tether("--json", "show", done.json()["id"], cwd=repo).json()
    assert new["files"] == ["g.py"]
    assert [a if isinstance(a, str) else a["symbol"] for a in new["anchors"]] == ["g.py::keep"]


def test_under_a_guard_only_an_anchor_in_a_deleted_file_goes(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    made = run_tether(
        "--json",
        "remember",
        "both stay cheap",
        "-c",
        "decision",
        "--anchor",
        "f.py::B.run",
        "--anchor",
        "g.py::keep",
        "--guard",
        cwd=repo,
    )
    assert made.code == 0, made.stderr
    git(repo, "rm", "-q", "f.py")
    done = run_tether(
        "--json", "supersede", made.json()["id"], "start is cheap", "-f", "a.py", cwd=repo
    )
    assert done.code == 0, done.stderr
    assert "f.py::B.run" in done.stderr and "not carried over" in done.stderr
    new = run_tether("--json", "show", done.json()["id"], cwd=repo).json()
    assert new["guard"] is True
    assert [a if isinstance(a, str) else a["symbol"] for a in new["anchors"]] == ["g.py::keep"]
    assert new["files"] == ["a.py", "g.py"]
