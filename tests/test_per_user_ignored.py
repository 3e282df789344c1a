"""A repository that comes with its own ``.tether/.gitignore`` lacking the store's rules: ``tether
init`` adds them (the lines there kept) or says what to add, and ``tether doctor`` reports git
committing the per-user files (index, locks, hook log) as a problem."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import git, make_repo, run_tether

from recall.ignore_rules import IGNORE_RULES
from recall.per_user_ignored import SAMPLES

OWN_LINE = "# nothing"


def _cloned(tmp_path: Path, ignore: str = f"{OWN_LINE}\n") -> Path:
    """A repository whose committed store holds ``ignore`` as its ``.gitignore``."""
    files = {"a.py": "x = 1\n", ".tether/.gitignore": ignore, ".tether/memories/.keep": ""}
    return make_repo(tmp_path / "cloned", files)


def _prompt(root: Path) -> None:
    payload = {"session_id": "s1", "cwd": str(root), "prompt": "hi"}
    payload["hook_event_name"] = "UserPromptSubmit"
    done = run_tether("hook", "prompt", cwd=root, stdin=json.dumps(payload))
    assert done.code == 0, done.stderr


def _untracked(root: Path) -> list[str]:
    status = git(root, "status", "--porcelain", "--untracked-files=all")
    return [line[3:] for line in status.splitlines() if line.startswith("??")]


def test_init_adds_the_missing_rules_keeping_the_lines_there(tmp_path: Path) -> None:
    root = _cloned(tmp_path)
    done = run_tether("init", cwd=root)
    assert done.code == 0, done.stderr
    ignore = root / ".tether" / ".gitignore"
    text = ignore.read_text(encoding="utf-8")
    assert text.startswith(f"{OWN_LINE}\n")
    assert f"{ignore}: added index.db, " in done.stderr and "commit the change" in done.stderr
    _prompt(root)  # writes the index, its locks and the hook's session
    assert _untracked(root) == []
    doctor = run_tether("doctor", cwd=root)
    assert doctor.code == 0, doctor.stdout + doctor.stderr


def test_doctor_reports_the_per_user_files_git_would_commit(tmp_path: Path) -> None:
    root = _cloned(tmp_path)
    _prompt(root)
    assert ".tether/index.db" in _untracked(root)
    ignore = root / ".tether" / ".gitignore"
    doctor = run_tether("doctor", cwd=root)
    assert doctor.code == 1
    assert f"{ignore}: git would commit the store's per-user files" in doctor.stdout
    assert "`index.db`, `index.db-*`, `*.lock`" in doctor.stdout
    assert "(`tether init` adds them)" in doctor.stdout
    found = run_tether("doctor", "--json", cwd=root)
    assert found.code == 1
    entry = next(e for e in found.json() if e.get("kind") == "per-user-unignored")
    assert entry["path"] == str(ignore)
    assert entry["missing"] == list(SAMPLES)


def test_a_line_letting_the_index_in_is_kept_and_named(tmp_path: Path) -> None:
    root = _cloned(tmp_path, "!index.db\n")
    done = run_tether("init", cwd=root)
    assert done.code == 0, done.stderr
    ignore = root / ".tether" / ".gitignore"
    lines = ignore.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "!index.db" and "index.db" not in lines  # never overridden
    said = f"{ignore}:1: `!index.db` lets git commit .tether/index.db"
    assert said in done.stderr
    assert "git would commit the index: see below" in done.stdout
    doctor = run_tether("doctor", cwd=root)
    assert doctor.code == 1 and said in doctor.stdout


def test_a_linked_ignore_file_is_not_written_through_and_said(tmp_path: Path) -> None:
    root = _cloned(tmp_path)
    ignore = root / ".tether" / ".gitignore"
    target = tmp_path / "elsewhere"
    target.write_text(OWN_LINE + "\n", encoding="utf-8")
    ignore.unlink()
    os.symlink(target, ignore)
    done = run_tether("init", cwd=root)
    assert done.code == 0, done.stderr
    assert target.read_text(encoding="utf-8") == OWN_LINE + "\n"
    assert "it is a symbolic link, which git does not read" in done.stderr
    assert "the index stays out of git" not in done.stdout
    doctor = run_tether("doctor", "--json", cwd=root)
    assert doctor.code == 1
    assert any("symbolic link" in e["message"] for e in doctor.json())


def test_every_ignore_rule_has_a_file_asked_in_its_stead() -> None:
    rules = [line for line in IGNORE_RULES.splitlines() if line and not line.startswith("#")]
    assert list(SAMPLES) == rules
