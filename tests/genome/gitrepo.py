"""A git repository in a temp folder, driven through the git command line.

Every commit gets its own fixed author and committer date (one hour apart from 2024-01-01
UTC) through the environment, so results never depend on the clock or on global git config.
"""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
IDENTITY = {
    "GIT_AUTHOR_NAME": "Genome Test",
    "GIT_AUTHOR_EMAIL": "genome@example.com",
    "GIT_COMMITTER_NAME": "Genome Test",
    "GIT_COMMITTER_EMAIL": "genome@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def text_for(name: str, revision: int = 0) -> str:
    """File content unique to ``name`` (so renames are detected), with a revision line."""
    body = "".join(f"{name} line {n}\n" for n in range(8))
    return f"{body}revision {revision}\n"


class GitRepo:
    """A git repository in a temp folder, driven through the git command line."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.commits = 0
        self.revision = 0

    def git(self, *args: str, env: dict[str, str] | None = None) -> str:
        """Run git here and return its stdout; raises on failure."""
        done = subprocess.run(
            ["git", *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **(env or {})},
        )
        return done.stdout.strip()

    def write(self, path: str, text: str | bytes | None = None) -> None:
        """Create or rewrite a file (new unique content when ``text`` is None)."""
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            self.revision += 1
            text = text_for(path, self.revision)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")

    def remove(self, path: str) -> None:
        """Delete a tracked file."""
        self.git("rm", "-q", path)

    def move(self, old: str, new: str) -> None:
        """Rename a tracked file, keeping its content."""
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)

    def date(self, n: int) -> str:
        """The ISO date given to commit number ``n`` (counting from 0)."""
        return (EPOCH + timedelta(hours=n)).isoformat()

    def commit(self, message: str, *paths: str) -> str:
        """Write new content to ``paths``, stage everything and commit; return the sha."""
        for path in paths:
            self.write(path)
        self.git("add", "-A")
        stamp = self.date(self.commits)
        self.git(
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            message,
            env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp},
        )
        self.commits += 1
        return self.head()

    def head(self) -> str:
        """The sha HEAD points at."""
        return self.git("rev-parse", "HEAD")
