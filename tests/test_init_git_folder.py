"""``tether init`` refuses git's own folder (a bare repository, a clone's ``.git``): a store
made there would sit among git's files, where no file a memory names can exist."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, git, run_tether


def _bare_clone(repo: Path, tmp_path: Path) -> Path:
    git(tmp_path, "clone", "-q", "--bare", str(repo), "bare.git")
    return tmp_path / "bare.git"


def test_init_in_a_bare_repository_is_refused_and_creates_nothing(
    repo: Path, tmp_path: Path
) -> None:
    bare = _bare_clone(repo, tmp_path)
    before = sorted(p.name for p in bare.iterdir())
    result = run_tether("init", cwd=bare)
    assert result.code == 2
    assert result.stdout == ""
    line = result.stderr.strip()
    assert "\n" not in line
    assert str(bare) in line
    assert "no working tree" in line
    assert "git clone" in line
    assert sorted(p.name for p in bare.iterdir()) == before
    assert not (tmp_path / ".tether").exists()


def test_init_in_a_bare_repository_subfolder_is_refused(repo: Path, tmp_path: Path) -> None:
    bare = _bare_clone(repo, tmp_path)
    result = run_tether("--json", "init", cwd=bare / "refs")
    assert result.code == 2
    assert result.stdout == ""
    error = json.loads(result.stderr)
    assert error["exit_code"] == 2
    assert "no working tree" in error["error"]
    assert not (bare / "refs" / ".tether").exists()


def test_init_inside_a_clones_git_folder_is_refused_and_names_the_work_tree(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    result = cli("init", cwd=repo / ".git")
    assert result.code == 2
    assert f"run tether in {repo}" in result.stderr
    assert not (repo / ".tether").exists()
    assert not (repo / ".git" / ".tether").exists()


def test_remember_in_a_bare_repository_says_why_and_writes_nothing(
    repo: Path, tmp_path: Path
) -> None:
    bare = _bare_clone(repo, tmp_path)
    result = run_tether("remember", "-c", "gotcha", "-f", "README.md", "a note", cwd=bare)
    assert result.code == 2  # a wrong place to run, as init says it
    assert "no working tree" in result.stderr
    assert not (bare / ".tether").exists()


def test_a_bare_repository_kept_inside_a_work_tree_is_part_of_that_tree(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    git(repo, "clone", "-q", "--bare", str(repo), "fixtures/kept.git")
    result = cli("init", cwd=repo / "fixtures" / "kept.git")
    assert result.code == 0
    assert (repo / ".tether" / "memories").is_dir()


def _older_store(folder: Path) -> Path:
    """A ``.tether`` as an older ``tether init`` left it in ``folder`` (git's own folder)."""
    (folder / ".tether" / "memories").mkdir(parents=True)
    return folder / ".tether"


def test_a_store_an_older_init_made_in_a_bare_repository_is_refused_by_every_command(
    repo: Path, tmp_path: Path
) -> None:
    bare = _bare_clone(repo, tmp_path)
    store = _older_store(bare)
    commands = [
        ("list",),
        ("search", "lock"),
        ("recall", "--file", "README.md"),
        ("remember", "-c", "gotcha", "-f", "README.md", "a note"),
        ("doctor",),
        ("init",),
    ]
    for args in commands:
        for cwd in (bare, bare / "refs"):
            result = run_tether(*args, cwd=cwd)
            assert result.code == 2, (args, result.stderr)
            assert result.stdout == ""
            line = result.stderr.strip()
            assert "\n" not in line
            assert f"{store} is inside git's own folder {bare}" in line
            assert f"`git clone {bare}`" in line and "or remove it" in line
    assert sorted(p.name for p in store.iterdir()) == ["memories"]


def test_a_store_in_a_bare_repository_is_refused_in_json_too(repo: Path, tmp_path: Path) -> None:
    bare = _bare_clone(repo, tmp_path)
    _older_store(bare)
    result = run_tether("--json", "list", cwd=bare)
    assert result.code == 2 and result.stdout == ""
    error = json.loads(result.stderr)
    assert error["exit_code"] == 2
    assert "git's own folder" in error["error"]


def test_a_store_inside_a_clones_git_folder_is_refused_with_where_to_move_it(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    store = _older_store(repo / ".git")
    result = cli("list", cwd=repo / ".git")
    assert result.code == 2
    assert f"(`mv {store} {repo / '.tether'}`) or remove it" in result.stderr
    assert cli("init").code == 0  # the work tree's own store is not in git's folder
    result = cli("list", cwd=repo / ".git" / "refs")
    assert result.code == 2
    assert f"move its memory files into {repo / '.tether' / 'memories'}" in result.stderr
    in_the_work_tree = cli("list")  # no memory yet: exit 1, nothing said of git's folder
    assert in_the_work_tree.code == 1 and in_the_work_tree.stderr == ""
