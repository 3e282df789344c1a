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


def _alpha_deleted(tmp_path: Path) -> tuple[Path, str]:
    """The guarded memory of alpha and beta, then a commit deleting alpha (indexed)."""
    repo, memory_id = _guarded_then_changed(tmp_path)
    (repo / "src" / "d.py").write_text("def beta():\n    return 3\n", encoding="utf-8")
    git(repo, "commit", "-qam", "drop alpha")
    assert run_tether("index", cwd=repo).code == 0
    return repo, memory_id


@pytest.mark.parametrize(
    "command",
    [("confirm",), ("cleanup", "--confirm")],
    ids=["confirm", "cleanup-confirm"],
)
def test_a_gone_symbol_is_named_as_not_confirmed_and_the_rest_is(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    repo, memory_id = _alpha_deleted(tmp_path)
    done = run_tether(*command, memory_id, cwd=repo)
    assert done.code == 0, done.stderr  # what could be confirmed is
    assert "symbol src/d.py::alpha not confirmed" in done.stderr
    assert f"tether supersede {memory_id}" in done.stderr
    assert f"{memory_id}.md" in done.stderr
    assert "src/d.py::beta" not in done.stderr
    shown = run_tether("show", memory_id, "--json", cwd=repo).json()
    assert shown["confirmed"]  # the confirmation is recorded all the same
    text = run_tether("show", memory_id, cwd=repo).stdout
    assert "src/d.py::beta: current" in text
    assert "src/d.py::alpha: gone" in text


def test_confirm_json_lists_what_it_could_not_confirm(tmp_path: Path) -> None:
    repo, memory_id = _alpha_deleted(tmp_path)
    done = run_tether("confirm", memory_id, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    assert done.json()["not_confirmed"] == ["src/d.py::alpha"]


@pytest.mark.parametrize(
    "command",
    [("confirm",), ("cleanup", "--confirm"), ("cleanup", "--keep")],
    ids=["confirm", "cleanup-confirm", "cleanup-keep"],
)
def test_a_deleted_memory_is_neither_confirmed_nor_kept(
    repo: Path, command: tuple[str, ...]
) -> None:
    done = run_tether("remember", "a note", "-c", "gotcha", "-f", "src/app.py", "--json", cwd=repo)
    memory_id = done.json()["id"]
    assert run_tether("delete", memory_id, cwd=repo).code == 0
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    before = path.read_text(encoding="utf-8")
    refused = run_tether(*command, memory_id, cwd=repo)
    assert refused.code == 2, refused.stdout
    assert f"memory {memory_id} is deleted" in refused.stderr
    assert f"tether restore {memory_id}" in refused.stderr
    assert path.read_text(encoding="utf-8") == before
