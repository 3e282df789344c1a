"""Finding the repository a command runs in and who its user is, without spawning git twice."""

from __future__ import annotations

import os
from pathlib import Path

from recall import work_tree

TETHER_DIR = work_tree.TETHER_DIR


GIT_CONFIG_TIMEOUT_S = 5
"""Seconds ``git config`` may take: it reads two small files, so only a hung git gets near."""


def find_root(start: Path) -> Path | None:
    """The folder the project of ``start`` is rooted at: git's work tree, which is the nearest
    folder above holding ``.git`` unless git's configuration puts it elsewhere, else the
    nearest holding ``.tether``; None when there is none (:func:`recall.work_tree.find_root`)."""
    found = work_tree.find_root(str(start))
    return Path(found) if found is not None else None


def git_user_name(root: Path | None) -> str:
    """The ``git config user.name`` in effect for ``root``, or the login name, or ``""``."""
    from recall.gitquery import git_stdout  # here: finding the root (every command) runs none

    out = git_stdout(root or Path.cwd(), "config", "user.name", timeout=GIT_CONFIG_TIMEOUT_S)
    name = out.decode("utf-8", "replace").strip() if out is not None else ""
    return name or os.environ.get("USER", "")
