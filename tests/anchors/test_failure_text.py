"""A guarded memory failed at two places of one change is said once, each different fix once:
a fix that another says in full plus an aside (``(or `tether repoint …` after the move)``) is
not said again after it."""

from __future__ import annotations

from pathlib import Path

from conftest import git, make_repo, run_tether

from recall.anchors.findings import FAIL, Finding, guard_fix, one_failure_per_memory
from recall.model import Memory

GUARDED = Memory("a1b2c3d4", "decision", "keep the save order", guard=True)


def test_a_fix_said_with_an_aside_is_not_said_again() -> None:
    moved = Finding(
        FAIL, GUARDED, "src/util.py", 1, "moves symbol helper", guard_fix(GUARDED, True)
    )
    edited = Finding(FAIL, GUARDED, "src/util.py", 3, "the change edits helper", guard_fix(GUARDED))
    (merged,) = one_failure_per_memory([moved, edited])
    said = merged.said
    assert said.count("tether confirm a1b2c3d4") == 1, said
    assert said.count("commit the memory with the change") == 1, said
    assert "(or `tether repoint a1b2c3d4 --apply` after the move)" in said
    assert said.startswith("moves symbol helper; and the change edits helper, under a guarded")
    assert merged.to_dict()["guard"] is True


def test_different_fixes_are_each_said() -> None:
    renamed = guard_fix(GUARDED, renamed=("src/a.py", "src/b.py"))
    first = Finding(FAIL, GUARDED, "src/b.py", 1, "the change edits src/b.py", renamed)
    second = Finding(FAIL, GUARDED, "src/c.py", 2, "the change edits helper", guard_fix(GUARDED))
    (merged,) = one_failure_per_memory([first, second])
    assert "git's history shows src/a.py renamed to src/b.py" in merged.said
    assert merged.said.count("commit the memory with the change") == 2


def test_a_suggested_command_quotes_a_path_with_spaces(tmp_path: Path) -> None:
    """The command a failure suggests runs as printed once its placeholders are filled."""
    repo = make_repo(
        tmp_path / "repo",
        {"my dir/a b.py": "def helper():\n    return 1\n\n\ndef other():\n    return 2\n"},
    )
    assert run_tether("index", cwd=repo).code == 0
    written = run_tether(
        "remember",
        "helper stays pure",
        "-c",
        "decision",
        "--anchor",
        "my dir/a b.py::helper",
        "--pin",
        cwd=repo,
    )
    assert written.code == 0, written
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory")
    (repo / "my dir" / "a b.py").write_text("def other():\n    return 2\n", encoding="utf-8")
    checked = run_tether("check", cwd=repo)
    assert checked.code == 1, checked
    assert "--anchor 'my dir/a b.py::NAME'" in checked.stdout, checked.stdout


def test_a_deleted_guarded_symbol_says_how_to_tie_the_memory_to_code_again(tmp_path: Path) -> None:
    """A confirm ends the failure but leaves the anchor naming nothing: the failure says so,
    and what ties the memory to the code that holds it now, and each command works."""
    repo = make_repo(tmp_path / "repo", {"src/util.py": "def helper(a, b):\n    return a + b\n"})
    assert run_tether("index", cwd=repo).code == 0
    written = run_tether(
        "remember", "helper stays pure", "-c", "decision", "--anchor", "src/util.py::helper",
        "--guard", "--json", cwd=repo,
    )  # fmt: skip
    assert written.code == 0, written
    memory_id = written.json()["id"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory")
    (repo / "src" / "util.py").write_text("def other():\n    return 2\n", encoding="utf-8")
    checked = run_tether("check", cwd=repo)
    assert checked.code == 1, checked
    said = " ".join(checked.stdout.split())
    assert f"`tether supersede {memory_id} SUMMARY --anchor PATH::NAME`" in said
    assert (
        f"`tether confirm {memory_id}` (its anchor src/util.py::helper then names nothing)" in said
    )
    assert f"`tether archive {memory_id}`" in said
    assert run_tether("confirm", memory_id, cwd=repo).code == 0
    assert run_tether("check", cwd=repo).code == 0
