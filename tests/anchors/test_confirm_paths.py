"""Confirming a memory is one act wherever it is asked for: ``tether confirm ID`` and the
cleanup's ``--confirm ID`` (and its ``c`` key) both record the anchored symbols' code as it
is now, so a changed symbol stops being "changed" and ``tether check`` passes."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, make_repo, run_tether

BEFORE = "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n"
AFTER = "def alpha():\n    return 10\n\n\ndef beta():\n    return 2\n"


def _guarded_then_changed(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose guarded memory anchors alpha and beta, then a commit changing alpha."""
    repo = make_repo(tmp_path / "repo", {"src/d.py": BEFORE})
    done = run_tether(
        "remember", "alpha must stay pure", "-c", "gotcha", "--guard", "--json",
        "--anchor", "src/d.py::alpha", "--anchor", "src/d.py::beta", cwd=repo,
    )  # fmt: skip
    assert done.code == 0, done.stderr
    (repo / "src" / "d.py").write_text(AFTER, encoding="utf-8")
    git(repo, "commit", "-qam", "change alpha")
    assert run_tether("index", cwd=repo).code == 0
    return repo, done.json()["id"]


@pytest.mark.parametrize(
    "command",
    [("confirm",), ("cleanup", "--confirm")],
    ids=["confirm", "cleanup-confirm"],
)
def test_each_confirm_records_the_changed_symbol(tmp_path: Path, command: tuple[str, ...]) -> None:
    repo, memory_id = _guarded_then_changed(tmp_path)
    assert "src/d.py::alpha: changed" in run_tether("show", memory_id, cwd=repo).stdout
    assert run_tether("check", "--base", "HEAD~1", cwd=repo).code == 1
    done = run_tether(*command, memory_id, cwd=repo)
    assert done.code == 0, done.stderr
    shown = run_tether("show", memory_id, cwd=repo).stdout
    assert "src/d.py::alpha: current" in shown
    checked = run_tether("check", "--base", "HEAD~1", cwd=repo)
    assert checked.code == 0, checked.stdout
