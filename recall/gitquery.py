"""One short git query, for the few places that ask git a single question outside the genome
(whose reads go through :mod:`recall.genome.gitcmd`): its stdout, or None when it cannot say."""

from __future__ import annotations

from pathlib import Path


def git_stdout(root: Path, *args: str, timeout: float) -> bytes | None:
    """Run ``git ARGS`` in ``root``; its stdout, or None when git is missing, fails, times out
    or ``root`` is not a repository. Paths come back unquoted (``core.quotepath=off``)."""
    import subprocess  # only when git is asked: most callers are on paths that rarely do

    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args],
            cwd=root,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
