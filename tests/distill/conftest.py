"""Fixtures for the distill tests: a temp git repository and a way to make commits in it."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import OpenStore, git

from recall import frontmatter
from recall.store import MemoryStore


@dataclass
class History:
    """A repository to commit into, and its project store."""

    root: Path
    store: MemoryStore

    def commit(self, message: str, *files: str, date: str | None = None) -> str:
        """Append a line to each file (creating it), commit with ``message``; return the sha."""
        for name in files or ("src/app.py",):
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as handle:
                handle.write(f"change {message[:20]!r}\n")
        git(self.root, "add", "--", *(files or ("src/app.py",)))
        env = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else {}
        previous = {key: os.environ.get(key) for key in env}
        os.environ.update(env)
        try:
            git(self.root, "commit", "-q", "-m", message)
        finally:
            for key, value in previous.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        return git(self.root, "rev-parse", "HEAD").strip()

    def head(self) -> str:
        """The current HEAD commit."""
        return git(self.root, "rev-parse", "HEAD").strip()

    def fields(self, memory_id: str) -> dict[str, object]:
        """The front matter of a memory file as it is on disk now."""
        path = self.store.folder.path / f"{memory_id}.md"
        return frontmatter.parse(path.read_text(encoding="utf-8"), path).fields

    def memory_files(self) -> set[str]:
        """The memory file names of the project store."""
        return {p.name for p in self.store.folder.path.glob("*.md")}


@pytest.fixture
def history(repo: Path, open_store: Callable[..., OpenStore]) -> History:
    """The temp repository (one initial commit) and its project store."""
    return History(repo, open_store().store)
