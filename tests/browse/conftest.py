"""Fixtures for the browser tests: a temp repository with a few memories in both stores."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import OpenStore, remember

from recall import frontmatter
from recall.browse.actions import Browser
from recall.store import MemoryStore


@dataclass
class Shelf:
    """Two stores with known memories, and a way to read what their files now say."""

    project: MemoryStore
    global_: MemoryStore
    gotcha: str  # project, src/app.py
    decision: str  # project, docs/guide.md, pinned
    archived: str  # project, archived
    pref: str  # global

    def browser(self) -> Browser:
        """A browser over both stores, as ``tether browse`` builds it."""
        return Browser([self.project, self.global_], author="Browse Tester")

    def fields(self, memory_id: str, scope: str = "project") -> dict[str, object]:
        """The front matter of a memory file as it is on disk now."""
        store = self.project if scope == "project" else self.global_
        path = store.folder.path / f"{memory_id}.md"
        return frontmatter.parse(path.read_text(encoding="utf-8"), path).fields

    def files(self, scope: str = "project") -> set[str]:
        """The memory file names of a store."""
        store = self.project if scope == "project" else self.global_
        return {p.name for p in store.folder.path.glob("*.md")}


@pytest.fixture
def shelf(repo: Path, open_store: Callable[..., OpenStore]) -> Shelf:
    """Project memories (a gotcha, a pinned decision, an archived context) and a global pref."""
    project = open_store().store
    global_ = open_store(scope="global").store
    gotcha = remember(
        project,
        "Retry the upload twice before failing",
        details="The storage API drops the first request after idle.",
        files=["src/app.py"],
    )
    decision = remember(
        project,
        "Guides are written in plain Markdown",
        category="decision",
        files=["docs/guide.md"],
        pinned=True,
    )
    archived = remember(project, "Old build steps", category="context", files=["README.md"])
    project.set_status(archived, "archived", allowed_from=("active",))
    pref = remember(global_, "Prefer small commits", category="pref", files=[])
    return Shelf(project, global_, gotcha, decision, archived, pref)
