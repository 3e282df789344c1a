"""A file a sparse checkout leaves out of the working tree is a file of the repository all the
same (git's index holds it, marked skip-worktree): a memory naming it is not said to be gone,
co-change and fan-in count it, and an anchor in it is unknown (its file cannot be read), not
gone. The real CLI in a real sparse clone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo, run_tether

Run = Callable[..., CliResult]


@pytest.fixture
def sparse(tmp_path: Path) -> tuple[Path, str, str]:
    """A clone that checks out only app/ (and the memories) of a repository whose app/a.py
    imports lib/l.py and changed with it twice; a memory names lib/l.py, another anchors its
    function ``f``. The clone, and the two memories' ids."""
    src = make_repo(
        tmp_path / "src",
        {
            "app/a.py": "import lib.l\n",
            "lib/__init__.py": "",
            "lib/l.py": "def f():\n    return 1\n",
        },
    )
    (src / "app/a.py").write_text("import lib.l\n\nX = 2\n")
    (src / "lib/l.py").write_text("def f():\n    return 2\n")
    git(src, "commit", "-q", "-am", "both again")
    named = run_tether(
        "--json", "remember", "lib gotcha", "-c", "gotcha", "-f", "lib/l.py", cwd=src
    )
    anchored = run_tether(
        "--json", "remember", "f is pure", "-c", "gotcha", "--anchor", "lib/l.py::f", cwd=src
    )
    assert named.code == anchored.code == 0, named.stderr + anchored.stderr
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "memories")
    clone = tmp_path / "sparse"
    git(tmp_path, "clone", "-q", str(src), str(clone))
    git(clone, "sparse-checkout", "set", "app", ".tether")
    assert not (clone / "lib/l.py").exists()
    assert "S lib/l.py" in git(clone, "ls-files", "-t")
    return clone, named.json()["id"], anchored.json()["id"]


def test_doctor_finds_no_file_gone_in_a_sparse_checkout(sparse: tuple[Path, str, str]) -> None:
    clone, _, _ = sparse
    doctor = run_tether("doctor", cwd=clone)
    assert (doctor.code, doctor.stdout.strip()) == (0, "No problems found."), doctor.stdout


def test_cochange_and_fan_in_count_a_file_not_checked_out(sparse: tuple[Path, str, str]) -> None:
    clone, named, anchored = sparse
    near = run_tether("neighbours", "app/a.py", cwd=clone)
    assert near.code == 0, near.stderr
    assert near.stdout.split("\t")[0] == "lib/l.py", near.stdout
    recalled = run_tether("--json", "recall", "-f", "app/a.py", "--no-record", cwd=clone)
    found = {hit["id"]: hit["receipt"] for hit in recalled.json()["results"]}
    assert "via co-change with lib/l.py" in found.get(named, ""), recalled.stdout
    fan_in = run_tether("--json", "fanin", "lib/l.py", cwd=clone)
    assert (fan_in.json()["exists"], fan_in.json()["fan_in"]) == (True, 1), fan_in.stdout
    shown = run_tether("--json", "show", anchored, cwd=clone)
    [state] = shown.json()["anchor_states"]
    assert state["state"] == "unknown"


def test_recall_of_a_file_not_checked_out_says_why_it_is_missing(
    sparse: tuple[Path, str, str],
) -> None:
    clone, named, _ = sparse
    recalled = run_tether("--json", "recall", "-f", "lib/l.py", "--no-record", cwd=clone)
    assert named in {hit["id"] for hit in recalled.json()["results"]}
    said = "lib/l.py is not checked out here (the sparse checkout leaves it out)"
    assert said in recalled.stderr, recalled.stderr
