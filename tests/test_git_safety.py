"""A repository's own git configuration never makes Tether run a program: its fsmonitor, filter
drivers, signature checker and git hooks are not started by the genome's reads, the prompt
hook, `tether check`, `tether distill` or `tether doctor`, wherever the configuration comes
from (the repository's config, a file it includes, a git folder kept apart from the tree)."""

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


def _remember(repo: Path) -> None:
    remembered = run_tether(
        "remember", "keep it short", "-c", "gotcha", "-f", "src/app.py", cwd=repo
    )
    assert remembered.code == 0, remembered


def _read_everything(repo: Path, mark: Path) -> None:
    """Run every command that reads the repository through git; none may leave the mark."""
    assert run_tether("index", cwd=repo).code == 0
    assert run_tether("hook", "prompt", cwd=repo, stdin=_prompt(repo)).code == 0
    assert run_tether("check", cwd=repo).code in (0, 1)
    assert run_tether("doctor", cwd=repo).code in (0, 1)
    assert not mark.exists(), mark.read_text(encoding="utf-8")


def test_a_repositorys_fsmonitor_is_never_started(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    _remember(repo)
    git(repo, "config", "core.fsmonitor", str(program))
    (repo / "src" / "app.py").write_text("changed\n", encoding="utf-8")  # a modified file
    _read_everything(repo, mark)


def test_a_repositorys_filter_driver_is_never_run(tmp_path: Path) -> None:
    """A clean filter the repository's config names for its files (through .gitattributes)
    would run whenever git hashes a working-tree file again: after its times changed, as in a
    copied or unpacked repository."""
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    (repo / ".gitattributes").write_text("*.py filter=planted\n", encoding="utf-8")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes")
    _remember(repo)
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
    _remember(repo)
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
    _remember(repo)
    git(inner, "config", "filter.planted.clean", str(program))
    git(inner, "config", "filter.planted.required", "true")
    git(repo, "config", "submodule.vendor/lib.ignore", "none")
    (inner / ".git" / "info").mkdir(exist_ok=True)
    (inner / ".git" / "info" / "attributes").write_text("* filter=planted\n", encoding="utf-8")
    os.utime(inner / "lib.py", (1_500_000_000, 1_500_000_000))  # git must hash it again
    _read_everything(repo, mark)


def test_a_submodule_check_reads_runs_none_of_its_programs(tmp_path: Path) -> None:
    """``check`` reads a submodule pointed at another commit by running git in it, to compare
    the two commits and show a file of one: its own config's programs are never run."""
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    inner = make_repo(repo / "vendor" / "lib", {"lib.py": "def f():\n    return 1\n"})
    git(repo, "add", "vendor/lib")
    git(repo, "commit", "-q", "-m", "vendor the library")
    told = run_tether("remember", "f is pure", "-c", "gotcha", "-f", "vendor/lib/lib.py", cwd=repo)
    assert told.code == 0, told
    (inner / "lib.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    git(inner, "commit", "-q", "-am", "edit f")
    hooks = tmp_path / "planted-hooks"
    config = _planted_config(program, hooks)
    with (inner / ".git" / "config").open("a", encoding="utf-8") as file:
        file.write(config + "\n[diff]\n\texternal = " + str(program) + "\n")
    (inner / ".git" / "info").mkdir(exist_ok=True)
    (inner / ".git" / "info" / "attributes").write_text("* filter=planted\n", encoding="utf-8")
    checked = run_tether("check", cwd=repo)
    assert "review vendor/lib/lib.py:2" in checked.stdout, checked
    _read_everything(repo, mark)


@pytest.mark.parametrize("where", ["hooks folder", "core.hooksPath"])
def test_a_repositorys_git_hook_is_never_run(tmp_path: Path, where: str) -> None:
    """`git diff` against the working tree refreshes the index when files' times changed (an
    unpacked or copied repository, an edit) and writes it back, which runs the repository's
    post-index-change hook."""
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    _remember(repo)
    hooks = repo / ".git" / "hooks"
    if where == "core.hooksPath":
        hooks = tmp_path / "planted-hooks"
        git(repo, "config", "core.hooksPath", str(hooks))
    hooks.mkdir(exist_ok=True)
    for name in ("post-index-change", "post-checkout", "pre-auto-gc", "reference-transaction"):
        (hooks / name).symlink_to(program)
    for path in (repo / "src").glob("*.py"):
        os.utime(path, (1_500_000_000, 1_500_000_000))  # git refreshes the index
    _read_everything(repo, mark)


def _planted_config(program: Path, hooks: Path) -> str:
    """Every program-naming key the tests above plant one at a time, in one config file."""
    hooks.mkdir(exist_ok=True)
    for name in ("post-index-change", "post-checkout", "reference-transaction"):
        (hooks / name).symlink_to(program)
    return (
        f"[core]\n\tfsmonitor = {program}\n\thooksPath = {hooks}\n"
        f"[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {program}\n"
        f'[filter "planted"]\n\tclean = {program}\n\trequired = true\n'
    )


@pytest.mark.parametrize("source", ["include.path", "includeIf gitdir", "separate git folder"])
def test_keys_from_an_included_file_or_a_separate_git_folder_are_overridden_too(
    tmp_path: Path, source: str
) -> None:
    """Tether's own ``-c`` options outrank every config file git reads, however it reached
    that file: an ``include.path``, an ``includeIf`` that matches this repository, or a
    ``.git`` file sending git to a git folder kept elsewhere (``git init --separate-git-dir``,
    or an unpacked archive whose ``.git`` names some other repository's)."""
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    _remember(repo)
    before = _sign_head(repo)
    git_dir = repo / ".git"
    if source == "separate git folder":
        git_dir = tmp_path / "elsewhere.git"
        (repo / ".git").rename(git_dir)
        (repo / ".git").write_text(f"gitdir: {git_dir}\n", encoding="utf-8")
        assert git(repo, "rev-parse", "--absolute-git-dir").strip() == str(git_dir.resolve())
    included = tmp_path / "planted.cfg"
    included.write_text(_planted_config(program, tmp_path / "planted-hooks"), encoding="utf-8")
    section = '[includeIf "gitdir:**/"]' if source == "includeIf gitdir" else "[include]"
    with (git_dir / "config").open("a", encoding="utf-8") as config:
        config.write(f"{section}\n\tpath = {included}\n")
    assert git(repo, "config", "core.fsmonitor").strip() == str(program)  # git does read it
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "attributes").write_text("* filter=planted\n", encoding="utf-8")
    for path in (repo / "src").glob("*.py"):
        os.utime(path, (1_500_000_000, 1_500_000_000))  # git hashes them again
    distilled = run_tether("distill", "--since", before, "--dry-run", cwd=repo)
    assert distilled.code in (0, 1), distilled  # 1: nothing to write
    _read_everything(repo, mark)


def test_a_bare_repository_committed_inside_is_never_used_with_its_config(tmp_path: Path) -> None:
    """A bare repository in the tree (``vendor/evil.git``, committed) whose config names a
    program: run from inside it, git would take it for the repository and read its config;
    Tether's commands there run no program of it."""
    repo = make_repo(tmp_path / "repo")
    program, mark = _planted(tmp_path)
    _remember(repo)
    bare = repo / "vendor" / "evil.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    git(bare, "config", "core.fsmonitor", str(program))
    git(bare, "config", "core.hooksPath", str(tmp_path / "planted-hooks"))
    (tmp_path / "planted-hooks").mkdir()
    (tmp_path / "planted-hooks" / "post-index-change").symlink_to(program)
    git(repo, "add", "-f", "vendor")
    git(repo, "commit", "-q", "-m", "vendor a bare repository")
    assert run_tether("index", cwd=bare).code == 0
    assert run_tether("hook", "prompt", cwd=bare, stdin=_prompt(bare)).code == 0
    app = str(repo / "src" / "app.py")
    recalled = run_tether("recall", "-f", app, "--json", "--no-record", cwd=bare)
    assert recalled.code == 0, recalled  # the enclosing repository's store answers
    assert [hit["summary"] for hit in json.loads(recalled.stdout)["results"]] == ["keep it short"]
    assert run_tether("doctor", cwd=bare).code in (0, 1)
    assert run_tether("check", cwd=bare).code in (0, 1)
    assert not mark.exists(), mark.read_text(encoding="utf-8")


def test_the_command_word_is_found_past_the_leading_options() -> None:
    from recall.git_safety import IGNORE_DIRTY_SUBMODULES, command_of, with_command_options

    assert command_of(["-c", "a.b=1", "-c", "c.d=2", "diff", "HEAD"]) == "diff"
    assert command_of(["-c", "a.b=1"]) is None
    assert command_of([]) is None
    assert with_command_options(["-c", "a.b=1", "diff", "HEAD"]) == [
        "-c",
        "a.b=1",
        "diff",
        IGNORE_DIRTY_SUBMODULES,
        "HEAD",
    ]
    assert with_command_options(["status", "-z"]) == ["status", IGNORE_DIRTY_SUBMODULES, "-z"]
    assert with_command_options(["-c", "a.b=1", "log", "-1"]) == ["-c", "a.b=1", "log", "-1"]
    assert with_command_options(["-c", "a.b=1"]) == ["-c", "a.b=1"]
