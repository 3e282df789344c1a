"""The repository the language-server tests open: a few files, their memories, git history."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from recall.genome import Genome
from recall.locations import project_location
from recall.store import MemoryStore
from tests.conftest import commit_rename, git, make_repo

STORE_PY = """import os


def load_session(path):
    return open(path).read()


def save_session(path, data):
    os.replace(write_temp(path, data), path)
"""
APP_PY = "from src.store import save_session\n\nsave_session('s.json', '{}')\n"
NOTES_MD = "# notes\n"

GOTCHA = "session save must go through safeRename"
GOTCHA_DETAILS = "A plain write can leave a half-written session file if the process dies."
APP_GOTCHA = "app start must load the session before serving"
DECISION = "sessions are JSON, not pickle"


@dataclass(frozen=True)
class Workspace:
    """Paths and memory ids of the test repository."""

    root: Path
    store_py: Path
    app_py: Path
    notes: Path
    gotcha: str
    app_gotcha: str
    decision: str

    def memory_file(self, memory_id: str) -> Path:
        """The path of a memory file of the project store."""
        return self.root / ".tether" / "memories" / f"{memory_id}.md"

    def open_store(self) -> MemoryStore:
        """A fresh in-process view of the project store (the server writes the same files)."""
        return MemoryStore(project_location(self.root), notice=lambda message: None)

    def commit_file(self, relative: str, text: str) -> Path:
        """Write ``relative`` (its folder made) and commit it alone; its path."""
        target = self.root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        git(self.root, "add", "--", relative)
        git(self.root, "commit", "-q", "-m", f"add {relative}")
        return target

    def commit_rename(self, old: str, new: str) -> None:
        """Rename ``old`` to ``new`` with ``git mv``, committed, and record it in the index as
        the indexer does (a request to the server reads the index as it is)."""
        commit_rename(self.root, old, new)
        store = self.open_store()
        try:
            Genome(self.root, store.conn).refresh()
        finally:
            store.close()

    def commit_store_changes(self, count: int, date: str) -> None:
        """``count`` commits, each appending a line to src/store.py, dated ``date``."""
        for n in range(count):
            self.store_py.write_text(self.store_py.read_text() + f"# change {n}\n")
            subprocess.run(
                ["git", "commit", "-qam", f"change {n}"],
                cwd=self.root,
                check=True,
                env={**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date},
            )


def build(path: Path) -> Workspace:
    """A git repository with three files and three memories on disk."""
    root = make_repo(
        path, {"src/store.py": STORE_PY, "src/app.py": APP_PY, "docs/notes.md": NOTES_MD}
    )
    store = MemoryStore(project_location(root), notice=lambda message: None)
    try:

        def write(summary: str, category: str, files: list[str], **extra: object) -> str:
            draft = store.prepare_memory(
                summary=summary, category=category, files=files, author="Dana", **extra
            )
            return store.remember(draft).id

        gotcha = write(
            GOTCHA, "gotcha", ["src/store.py"], details=GOTCHA_DETAILS, anchor="save_session"
        )
        app_gotcha = write(APP_GOTCHA, "gotcha", ["src/app.py"])
        decision = write(DECISION, "decision", ["src/store.py"])
    finally:
        store.close()
    return Workspace(
        root=root,
        store_py=root / "src" / "store.py",
        app_py=root / "src" / "app.py",
        notes=root / "docs" / "notes.md",
        gotcha=gotcha,
        app_gotcha=app_gotcha,
        decision=decision,
    )


SECOND_GOTCHA = "billing totals are in cents, never floats"


def build_second(path: Path) -> Path:
    """Another repository with one file and one gotcha (for multi-root sessions)."""
    root = make_repo(path, {"billing/total.py": "def total(items):\n    return 0\n"})
    store = MemoryStore(project_location(root), notice=lambda message: None)
    try:
        draft = store.prepare_memory(
            summary=SECOND_GOTCHA, category="gotcha", files=["billing/total.py"]
        )
        store.remember(draft)
    finally:
        store.close()
    return root
