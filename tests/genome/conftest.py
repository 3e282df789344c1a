"""Fixtures: real git repositories built in temp folders, and index databases for genomes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from recall.genome import Genome
from recall.index.db import open_checked

from .gitrepo import IDENTITY, GitRepo


@pytest.fixture(autouse=True)
def git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """A git identity and no system or global git config for every test here."""
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_AUTHOR_DATE"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[str], GitRepo]:
    """Factory: an empty git repository (branch ``main``) under ``tmp_path``."""

    def factory(name: str = "repo") -> GitRepo:
        root = tmp_path / name
        root.mkdir(parents=True)
        repo = GitRepo(root.resolve())
        repo.git("init", "-q", "-b", "main")
        return repo

    return factory


@pytest.fixture
def open_genome(tmp_path: Path) -> Iterator[Callable[..., Genome]]:
    """Factory: a genome of ``root`` in its own index database (named by ``db``)."""
    opened = []

    def factory(root: Path | None, db: str = "index", **kwargs: object) -> Genome:
        # a prepared index, as a store's: a file with tables and no schema version is refused
        conn, _created = open_checked(tmp_path / f"{db}.db")
        opened.append(conn)
        return Genome(root, conn, **kwargs)  # type: ignore[arg-type]

    yield factory
    for conn in opened:
        conn.close()
