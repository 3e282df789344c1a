"""What a command that reads git itself says where there is no git repository."""

from __future__ import annotations

from pathlib import Path


def needs_git(command: str, reads: str, where: Path) -> str:
    """The refusal of ``tether COMMAND`` outside git: what it ``reads`` in git, the folder
    ``where`` it ran, and what to do (a folder set up by ``tether init`` alone has no
    history, so ``init`` is not the advice)."""
    return (
        f"tether {command} {reads}, and {where} is not inside a git repository; "
        "run it in a clone, or `git init` there first"
    )
