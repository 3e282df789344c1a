"""A repository whose ``core.worktree`` names the work tree of another repository (a folder
with a ``.git`` and a store of its own): nothing Tether runs there reads or writes the other
repository's store. Commands refuse with one line naming the setting, its file and the folder
(exit 2); hooks say the same line on stderr, answer nothing and exit 0."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import git, make_repo, run_tether


def _contents(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with a digest of its bytes."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def claimed(tmp_path: Path) -> tuple[Path, Path]:
    """Repository ``other`` with a store, a memory on ``a.py`` and its index; repository
    ``here`` whose config names ``other`` as its work tree: (here, other)."""
    other = make_repo(tmp_path / "other", {"a.py": "def a():\n    return 1\n"})
    written = run_tether("remember", "a returns one", "-c", "gotcha", "-f", "a.py", cwd=other)
    assert written.code == 0, written.stderr
    assert run_tether("index", cwd=other).code == 0
    here = make_repo(tmp_path / "here", {"b.py": "b = 2\n"})
    git(here, "config", "core.worktree", "../../other")
    assert git(here, "rev-parse", "--show-toplevel").strip() == str(other)
    return here, other


def _hook(event: str, here: Path, other: Path) -> dict[str, object]:
    base: dict[str, object] = {"session_id": "s1", "cwd": str(here)}
    if event == "prompt":
        return {**base, "hook_event_name": "UserPromptSubmit", "prompt": "why does a.py?"}
    if event == "pre-edit":
        edit = {"file_path": str(other / "a.py"), "old_string": "1", "new_string": "2"}
        return {**base, "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": edit}
    return {**base, "hook_event_name": "SessionStart"}


def test_hooks_leave_the_other_repository_s_store_untouched(claimed: tuple[Path, Path]) -> None:
    here, other = claimed
    before = _contents(other / ".tether")
    config = here / ".git" / "config"
    events = ("session-start", "prompt", "pre-edit")
    done = {
        event: run_tether("hook", event, cwd=here, stdin=json.dumps(_hook(event, here, other)))
        for event in events
    }
    assert _contents(other / ".tether") == before
    assert not (here / ".tether").exists()
    for event, hooked in done.items():
        assert hooked.code == 0 and hooked.stdout == "", (event, hooked)
        said = hooked.stderr.strip()
        assert said.count("\n") == 0, (event, said)
        assert f"{config} sets core.worktree to {other}" in said, (event, said)
        assert "(the hook did nothing)" in said, (event, said)


def test_commands_refuse_naming_the_setting(claimed: tuple[Path, Path]) -> None:
    here, other = claimed
    before = _contents(other / ".tether")
    for words in (
        ("recall", "-f", "a.py"),
        ("inject", "-f", "a.py"),
        ("init",),
        ("--json", "list"),
    ):
        done = run_tether(*words, cwd=here)
        assert done.code == 2, (words, done)
        assert "core.worktree" in done.stderr + done.stdout, (words, done)
        assert str(other) in done.stderr + done.stdout, (words, done)
    assert _contents(other / ".tether") == before
    assert not (here / ".tether").exists()
    mine = run_tether(
        "--json", "recall", "-f", "a.py", cwd=other
    )  # the other repository is its own
    assert mine.code == 0 and mine.json()["results"][0]["summary"] == "a returns one", mine


def test_a_work_tree_whose_git_file_names_this_repository_is_its_own(tmp_path: Path) -> None:
    here = make_repo(tmp_path / "here", {"a.py": "a = 1\n"})
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("a = 1\n", encoding="utf-8")
    (tree / ".git").write_text(f"gitdir: {here / '.git'}\n", encoding="utf-8")
    git(here, "config", "core.worktree", "../../tree")
    written = run_tether("remember", "a is one", "-c", "gotcha", "-f", "a.py", cwd=here)
    assert written.code == 0, written.stderr
    assert (tree / ".tether" / "memories").is_dir() and not (here / ".tether").exists()
