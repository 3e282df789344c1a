"""A file in a submodule's work tree is a file of the repository: git lists only the
submodule's folder, yet a memory naming the file is recalled for it (as the pre-edit hook
already asked about its guard) and ``tether doctor`` does not call it gone. The real CLI,
real repositories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import git, make_repo

INNER = "sub/src/new/b.py"


def with_submodule(tmp_path: Path) -> Path:
    """A repository whose folder ``sub`` is a submodule holding ``src/new/b.py``."""
    library = make_repo(tmp_path / "library", {"src/new/b.py": "VALUE = 1\n"})
    repo = make_repo(tmp_path / "outer", {"README.md": "# demo\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "sub")
    git(repo, "commit", "-q", "-m", "the library as a submodule")
    return repo


def test_a_memory_on_a_submodule_file_is_recalled_and_not_gone(tmp_path: Path, cli: Any) -> None:
    repo = with_submodule(tmp_path)
    assert cli("index", cwd=repo).code == 0
    done = cli("remember", "b is generated", "-c", "gotcha", "-f", INNER, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    memory = done.json()["id"]

    recalled = cli("recall", "-f", INNER, "--json", cwd=repo)
    assert [hit["id"] for hit in recalled.json()["results"]] == [memory]
    assert f"[gotcha] {memory}" in cli("inject", "-f", INNER, cwd=repo).stdout
    doctor = cli("doctor", cwd=repo)
    assert doctor.stdout.strip() == "No problems found.", doctor.stdout

    (repo / INNER).unlink()  # gone from the submodule's work tree: gone
    assert "is not in the working tree" in cli("recall", "-f", INNER, cwd=repo).stderr
    assert f"{memory}: every file it names is gone" in cli("doctor", cwd=repo).stdout


def test_remember_says_when_the_submodule_has_a_store_of_its_own(tmp_path: Path, cli: Any) -> None:
    repo = with_submodule(tmp_path)
    assert cli("init", cwd=repo / "sub").code == 0
    done = cli("remember", "b is generated", "-c", "gotcha", "-f", INNER, cwd=repo)
    assert done.code == 0, done.stderr
    assert f"--file '{INNER}' is in sub, a repository with a Tether store of its own" in (
        done.stderr
    )
    assert "run `tether remember` in sub to write it there" in done.stderr
    plain = cli("remember", "readme is short", "-c", "gotcha", "-f", "README.md", cwd=repo)
    assert "store of its own" not in plain.stderr
