"""Finding the repository a command runs in and who its user is, without spawning git twice."""

from __future__ import annotations

import os
from pathlib import Path

TETHER_DIR = ".tether"


def find_root(start: Path) -> Path | None:
    """Return the nearest ancestor of ``start`` holding ``.git`` or ``.tether``, else None."""
    current = start.resolve()
    for candidate in (current, *current.parents):
        if (candidate / ".git").exists() or (candidate / TETHER_DIR).is_dir():
            return candidate
    return None


def git_user_name(root: Path | None) -> str:
    """The ``git config user.name`` in effect for ``root``, or the login name, or ``""``."""
    import shutil  # here, not above: finding the root (every command) runs no process
    import subprocess

    if shutil.which("git"):
        try:
            out = subprocess.run(
                ["git", "config", "user.name"],
                cwd=root or Path.cwd(),
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
            )
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return os.environ.get("USER", "")
