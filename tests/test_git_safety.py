"""A repository's own git configuration never makes Tether run a program: its fsmonitor is not
started by the genome's reads, the prompt hook, `tether check` or `tether doctor`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import git, make_repo, run_tether


def _planted(tmp_path: Path) -> tuple[Path, Path]:
    """A program that leaves a mark when run, and the mark's path."""
    mark = tmp_path / "ran.txt"
    program = tmp_path / "planted.sh"
    program.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{mark}'\nexit 1\n", encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program, mark


def _prompt(root: Path) -> str:
    payload = {"session_id": "s1", "cwd": str(root), "prompt": "fix the loop in src/app.py"}
    return json.dumps(payload)


def test_a_repositorys_fsmonitor_is_never_started(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    assert (
        run_tether("remember", "keep it short", "-c", "gotcha", "-f", "src/app.py", cwd=repo).code
        == 0
    )
    git(repo, "config", "core.fsmonitor", str(program))
    (repo / "src" / "app.py").write_text("changed\n", encoding="utf-8")  # a modified file
    assert run_tether("index", cwd=repo).code == 0
    assert run_tether("hook", "prompt", cwd=repo, stdin=_prompt(repo)).code == 0
    assert run_tether("check", cwd=repo).code in (0, 1)
    assert run_tether("doctor", cwd=repo).code in (0, 1)
    assert not mark.exists(), mark.read_text(encoding="utf-8")


def test_a_repositorys_filter_driver_is_never_run(tmp_path: Path) -> None:
    """A clean filter the repository's config names for its files (through .gitattributes)
    would run whenever git hashes a working-tree file again: after its times changed, as in a
    copied or unpacked repository."""
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    (repo / ".gitattributes").write_text("*.py filter=planted\n", encoding="utf-8")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes")
    remembered = run_tether(
        "remember", "keep it short", "-c", "gotcha", "-f", "src/app.py", cwd=repo
    )
    assert remembered.code == 0, remembered
    git(repo, "config", "filter.planted.clean", str(program))
    git(repo, "config", "filter.planted.required", "true")
    for path in (repo / "src").glob("*.py"):
        os.utime(path, (1_500_000_000, 1_500_000_000))  # git must hash them again
    assert run_tether("index", cwd=repo).code == 0
    assert run_tether("hook", "prompt", cwd=repo, stdin=_prompt(repo)).code == 0
    assert run_tether("check", cwd=repo).code in (0, 1)
    assert not mark.exists(), mark.read_text(encoding="utf-8")


def _sign_head(repo: Path) -> str:
    """Give HEAD a child commit carrying a (made-up) signature; return the old HEAD."""
    parent = git(repo, "rev-parse", "HEAD").strip()
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    body = (
        f"tree {tree}\nparent {parent}\n"
        "author A <a@example.com> 1700000000 +0000\n"
        "committer A <a@example.com> 1700000000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n"
        "\nsigned\n"
    )
    made = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=repo,
        input=body.encode(),
        capture_output=True,
        check=True,
    )
    git(repo, "update-ref", "HEAD", made.stdout.decode().strip())
    return parent


def test_a_signed_commit_never_runs_the_repositorys_gpg_program(tmp_path: Path) -> None:
    """With log.showSignature, git log and git show check every signed commit they print with
    the gpg.program the repository's config names; any commit can carry a signature."""
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    remembered = run_tether(
        "remember", "keep it short", "-c", "gotcha", "-f", "src/app.py", cwd=repo
    )
    assert remembered.code == 0, remembered
    before = _sign_head(repo)
    git(repo, "config", "log.showSignature", "true")
    git(repo, "config", "gpg.program", str(program))
    assert run_tether("index", cwd=repo).code == 0
    distilled = run_tether("distill", "--since", before, "--dry-run", cwd=repo)
    assert distilled.code in (0, 1), distilled  # 1: nothing to write
    assert run_tether("hook", "prompt", cwd=repo, stdin=_prompt(repo)).code == 0
    assert run_tether("check", cwd=repo).code in (0, 1)
    assert run_tether("doctor", cwd=repo).code in (0, 1)
    assert not mark.exists(), mark.read_text(encoding="utf-8")


def test_a_submodules_filter_driver_is_never_run(tmp_path: Path) -> None:
    """git diff looks inside a submodule's working tree by running git there, which reads the
    submodule's own config: its filter drivers are not among the superproject's."""
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    inner = make_repo(repo / "vendor" / "lib", {"lib.py": "def f():\n    return 1\n"})
    git(repo, "add", "vendor/lib")  # an embedded repository: a submodule without .gitmodules
    git(repo, "commit", "-q", "-m", "vendor the library")
    remembered = run_tether(
        "remember", "keep it short", "-c", "gotcha", "-f", "src/app.py", cwd=repo
    )
    assert remembered.code == 0, remembered
    git(inner, "config", "filter.planted.clean", str(program))
    git(inner, "config", "filter.planted.required", "true")
    git(repo, "config", "submodule.vendor/lib.ignore", "none")
    (inner / ".git" / "info").mkdir(exist_ok=True)
    (inner / ".git" / "info" / "attributes").write_text("* filter=planted\n", encoding="utf-8")
    os.utime(inner / "lib.py", (1_500_000_000, 1_500_000_000))  # git must hash it again
    assert run_tether("index", cwd=repo).code == 0
    assert run_tether("hook", "prompt", cwd=repo, stdin=_prompt(repo)).code == 0
    assert run_tether("check", cwd=repo).code in (0, 1)
    assert run_tether("doctor", cwd=repo).code in (0, 1)
    assert not mark.exists(), mark.read_text(encoding="utf-8")


@pytest.mark.parametrize("where", ["hooks folder", "core.hooksPath"])
def test_a_repositorys_git_hook_is_never_run(tmp_path: Path, where: str) -> None:
    """`git diff` against the working tree refreshes the index when files' times changed (an
    unpacked or copied repository, an edit) and writes it back, which runs the repository's
    post-index-change hook."""
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    remembered = run_tether(
        "remember", "keep it short", "-c", "gotcha", "-f", "src/app.py", cwd=repo
    )
    assert remembered.code == 0, remembered
    hooks = repo / ".git" / "hooks"
    if where == "core.hooksPath":
        hooks = tmp_path / "planted-hooks"
        git(repo, "config", "core.hooksPath", str(hooks))
    hooks.mkdir(exist_ok=True)
    for name in ("post-index-change", "post-checkout", "pre-auto-gc", "reference-transaction"):
        (hooks / name).symlink_to(program)
    for path in (repo / "src").glob("*.py"):
        os.utime(path, (1_500_000_000, 1_500_000_000))  # git refreshes the index
    assert run_tether("index", cwd=repo).code == 0
    assert run_tether("hook", "prompt", cwd=repo, stdin=_prompt(repo)).code == 0
    assert run_tether("check", cwd=repo).code in (0, 1)
    assert run_tether("doctor", cwd=repo).code in (0, 1)
    assert not mark.exists(), mark.read_text(encoding="utf-8")
