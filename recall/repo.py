"""Finding the repository a command runs in and who its user is, without spawning git twice."""

from __future__ import annotations

import os
from pathlib import Path

TETHER_DIR = ".tether"


GIT_CONFIG_TIMEOUT_S = 5
"""Seconds ``git config`` may take: it reads two small files, so only a hung git gets near."""


def find_root(start: Path) -> Path | None:
    """Return the nearest ancestor of ``start`` holding ``.git`` or ``.tether``, else None."""
    current = start.resolve()
    for candidate in (current, *current.parents):
        if (candidate / ".git").exists() or (candidate / TETHER_DIR).is_dir():
            return candidate
    return None


def git_user_name(root: Path | None) -> str:
    """The ``git config user.name`` in effect for ``root``, or the login name, or ``""``."""
    from recall.gitquery import git_stdout  # here: finding the root (every command) runs none

    out = git_stdout(root or Path.cwd(), "config", "user.name", timeout=GIT_CONFIG_TIMEOUT_S)
    name = out.decode("utf-8", "replace").strip() if out is not None else ""
    return name or os.environ.get("USER", "")
