"""The store sits where git's work tree is, as git takes it: ``core.worktree`` in the
repository's config (read as git reads it), ``GIT_DIR`` and ``GIT_WORK_TREE`` in the
environment; paths given outside that work tree are taken from its top. A repository git
refuses (a worktree whose main repository moved, one owned by another user) is said with
git's reason by ``index`` and ``check``, never as no repository at all."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import git, run_tether


def _commit_all(meta: Path) -> None:
    git(meta, "add", "-A")
    git(meta, "commit", "-q", "-m", "work")


@pytest.fixture
def moved(tmp_path: Path) -> tuple[Path, Path]:
    """A repository in ``meta`` whose ``core.worktree`` puts the work tree in ``tree``, with
    ``src/a.py`` committed: (meta, tree)."""
    meta, tree = tmp_path / "meta", tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    meta.mkdir()
    git(meta, "init", "-q")
    git(meta, "config", "core.worktree", "../../tree")
    (tree / "src" / "a.py").write_text("def a():\n    return 1\n", encoding="utf-8")
    _commit_all(meta)
    return meta, tree


def test_core_worktree_puts_the_store_in_git_s_work_tree(moved: tuple[Path, Path]) -> None:
    meta, tree = moved
    assert git(meta, "rev-parse", "--show-toplevel").strip() == str(tree)
    made = run_tether("init", cwd=meta)
    assert made.code == 0 and f"Created {tree / '.tether'}" in made.stdout, made
    assert not (meta / ".tether").exists()
    written = run_tether(
        "--json", "remember", "a returns one", "-c", "gotcha", "-f", "src/a.py", cwd=meta
    )
    assert written.code == 0, written.stderr
    memory = written.json()["id"]
    assert (tree / ".tether" / "memories" / f"{memory}.md").is_file()
    doctor = run_tether("doctor", cwd=meta)
    assert doctor.code == 0 and "No problems found" in doctor.stdout, doctor
    assert "?? .tether/" in git(meta, "status", "--porcelain")  # git can commit it
    _commit_all(meta)
    assert run_tether("check", cwd=meta).code == 0
    (tree / "src" / "a.py").write_text("def a():\n    return 2\n", encoding="utf-8")
    checked = run_tether("check", cwd=meta)  # git run in the work tree finds the repository
    assert checked.code == 0, checked.stderr
    assert f"{memory} gotcha: a returns one — the change edits src/a.py" in checked.stdout
    indexed = run_tether("--json", "index", "--full", cwd=meta)
    assert indexed.code == 0, indexed.stderr
    summary = indexed.json()
    assert summary["head"] == git(meta, "rev-parse", "HEAD").strip()
    assert summary["commits_read"] == 2 and summary["files_tracked"] == 3


def test_a_hook_reads_the_work_tree_s_store_and_makes_none(moved: tuple[Path, Path]) -> None:
    meta, tree = moved
    prompt = {
        "session_id": "s1",
        "cwd": str(meta),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "why does src/a.py return one?",
    }
    before = run_tether("hook", "prompt", cwd=meta, stdin=json.dumps(prompt))
    assert before.code == 0, before.stderr
    assert not (tree / ".tether").exists() and not (meta / ".tether").exists()
    written = run_tether("remember", "a returns one", "-c", "gotcha", "-f", "src/a.py", cwd=meta)
    assert written.code == 0, written.stderr
    hooked = run_tether("hook", "prompt", cwd=meta, stdin=json.dumps(prompt))
    assert hooked.code == 0, hooked.stderr
    assert "a returns one" in hooked.stdout
    assert not (meta / ".tether").exists()


CONFIGS = {
    "a section in capitals, a quoted value, a comment": '[CORE] WorkTree = "../../tree" ; here\n',
    "a value continued on the next line": "[core]\n\tworktree = ../../tr\\\nee # here\n",
    "the last of two values": "[core]\n\tworktree = ../../gone\n[core]\nworktree=../../tree\n",
    "an absolute value": "[core]\n\tworktree = {tree}\n",
    "a worktree key of another section": "[alias]\n\tworktree = ../../tree\n",
    "a core subsection": '[core "x"]\n\tworktree = ../../tree\n',
    "core.bare beside it": "[core]\n\tworktree = ../../tree\n\tbare = true\n",
    "a folder that is not there": "[core]\n\tworktree = ../../gone\n",
    "a line git cannot read": "[core]\n\tworktree = ../../t\\qree\n",
    "an include (git never follows one for it)": "[include]\n\tpath = ../../elsewhere.cfg\n",
    "the worktree's own config": "[extensions]\n\tworktreeConfig = true\n",
}


@pytest.mark.parametrize("written", CONFIGS.values(), ids=CONFIGS.keys())
def test_the_setting_is_read_as_git_reads_it(tmp_path: Path, written: str) -> None:
    meta, tree = tmp_path / "meta", tmp_path / "tree"
    tree.mkdir()
    git(tmp_path, "init", "-q", "meta")
    (tmp_path / "elsewhere.cfg").write_text("[core]\n\tworktree = tree\n", encoding="utf-8")
    with (meta / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write(written.replace("{tree}", str(tree)))
    if "worktreeConfig" in written:
        (meta / ".git" / "config.worktree").write_text("[core]\n\tworktree = ../../tree\n")
    asked = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=meta, capture_output=True, text=True
    )
    # where git names no work tree (it refuses the setting), the folder of .git, as before
    expected = Path(asked.stdout.strip()) if asked.returncode == 0 else meta
    made = run_tether("--json", "init", cwd=meta)
    assert made.code == 0, made.stderr
    assert (expected / ".tether" / "memories").is_dir()
    assert [p.name for p in (tree, meta) if (p / ".tether").exists()] == [expected.name]


@pytest.fixture
def from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A work tree ``wt`` of the bare repository ``store.git``, as git finds it from
    ``GIT_DIR`` and ``GIT_WORK_TREE`` (the way dotfiles are often kept), one commit in it."""
    git(tmp_path, "init", "-q", "--bare", "store.git")
    work = tmp_path / "wt"
    work.mkdir()
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "store.git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(work))
    (work / "a.py").write_text("A = 1\n", encoding="utf-8")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "one")
    return work


def test_the_environment_s_work_tree_is_found_before_init(from_environment: Path) -> None:
    work = from_environment
    checked = run_tether("check", cwd=work)
    assert checked.code == 0, checked.stderr
    assert f"no .tether/ in {work} yet: `tether init` sets this repository up" in checked.stderr
    listed = run_tether("list", cwd=work)
    assert "not inside a git repository" not in listed.stderr
    assert f"no .tether/ in {work} yet" in listed.stderr
    indexed = run_tether("--json", "index", cwd=work)
    assert indexed.code == 0, indexed.stderr
    assert indexed.json()["commits_read"] == 1
    assert (work / ".tether" / "memories").is_dir()
    sub = work / "sub"
    sub.mkdir()
    written = run_tether("--json", "remember", "A is one", "-c", "gotcha", "-f", "../a.py", cwd=sub)
    assert written.code == 0, written.stderr
    shown = run_tether("--json", "show", written.json()["id"], cwd=sub)
    assert shown.json()["files"] == ["a.py"]


def test_a_worktree_whose_repository_moved_is_said_with_git_s_reason(tmp_path: Path) -> None:
    main = tmp_path / "main"
    git(tmp_path, "init", "-q", "main")
    (main / "a.py").write_text("A = 1\n", encoding="utf-8")
    _commit_all(main)
    git(main, "worktree", "add", "-q", "../wt", "-b", "f")
    main.rename(tmp_path / "main-moved")
    work = tmp_path / "wt"
    reason = f"fatal: not a git repository: {main / '.git' / 'worktrees' / 'wt'}"
    indexed = run_tether("index", cwd=work)
    assert indexed.code == 3, indexed.stderr
    assert reason in indexed.stderr and "not inside a git repository" not in indexed.stderr
    checked = run_tether("check", cwd=work)
    assert checked.code == 3, checked.stderr
    assert f"git could not read the repository at {work} ({reason})" in checked.stderr
    assert "git init" not in checked.stderr


def test_a_repository_git_refuses_as_another_user_s_is_said_with_git_s_reason(
    tmp_path: Path,
) -> None:
    git(tmp_path, "init", "-q", "theirs")
    theirs = tmp_path / "theirs"
    (theirs / "a.py").write_text("A = 1\n", encoding="utf-8")
    _commit_all(theirs)
    # git's own switch for treating a repository as another user's, as `chown` would make it
    other = {**os.environ, "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}
    refused = subprocess.run(
        ["git", "status"], cwd=theirs, capture_output=True, text=True, env=other
    )
    if "dubious ownership" not in refused.stderr:
        pytest.skip("this git does not check who owns a repository")
    checked = run_tether("check", cwd=theirs, env={"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"})
    assert checked.code == 3, checked.stderr
    assert "detected dubious ownership in repository" in checked.stderr
    assert "git init" not in checked.stderr and "not inside a git repository" not in checked.stderr
