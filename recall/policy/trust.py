"""Whose project memories reach an agent's prompt unasked (hooks, ``tether inject``, and the
MCP server's ``memory_recall``, whose results land in the agent's context the same way).

Project memories arrive with a cloned repository. The ``inject_others`` setting decides
whether memories written by other people are injected at all; hover, diagnostics, ``recall``
and ``show`` list them either way, labelled with their author.

"Mine" is decided from git history, never from the front matter (anyone can write
``author: you`` in a file): a memory file is mine when the latest commit that touched it was
authored with my ``git config user.email``, or when no commit holds it yet (it was written
in this checkout). Without git there is no provenance, and no project memory counts as mine.
Global memories are the user's own store and always count as mine.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall import env_values
from recall.errors import BadInput
from recall.gitquery import git_stdout
from recall.ranking.diversify import respread

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.ranking.engine import Hit
    from recall.store import MemoryStore

ENV_VAR: Final = env_values.INJECT_OTHERS
"""The user's own switch, outside any repository: a repository's files may turn injection of
others' memories off, never back on against this. A value it cannot read holds them back."""

GIT_TIMEOUT_S: Final = 10
"""Seconds one git call may take while deciding whose memories are mine (a log of the memory
folder, under a second on most histories): room for a huge one, yet a hung git (a held lock, a
stalled network mount) cannot hang ``tether inject`` or the MCP server; past it nothing counts
as mine, which errs toward holding back."""

Warn = Callable[[str], None]


def inject_others(repo_root: Path | None, warn: Warn) -> bool:
    """Whether other authors' project memories may be injected: off if the user's
    environment or the repository's settings say so, or the environment's switch cannot be
    read (said through ``warn``): a trust setting never fails open."""
    try:
        if env_values.switch(ENV_VAR) is False:
            return False
    except BadInput as error:
        warn(f"{error}; other authors' memories are held back meanwhile")
        return False
    from recall.settings import engine_settings  # its default: recall.settings.INJECT_OTHERS

    return bool(engine_settings(repo_root, warn).inject_others)


def _git(root: Path, *args: str) -> str | None:
    # only when git is asked (others' memories held back): rarely
    out = git_stdout(root, *args, timeout=GIT_TIMEOUT_S)
    return None if out is None else out.decode("utf-8", "replace")


def latest_authors(root: Path, folder: Path) -> dict[str, str] | None:
    """File name -> email of the latest commit touching it, for the files of ``folder``;
    None when git cannot tell (no git, not a repository)."""
    relative = os.path.relpath(folder, root)
    out = _git(root, "log", "--no-renames", "--format=%x1e%ae", "--name-only", "--", relative)
    if out is None:
        return None
    latest: dict[str, str] = {}
    for commit in out.split("\x1e")[1:]:  # newest first
        email, _, names = commit.partition("\n")
        for name in names.split("\n"):
            if name.strip():
                latest.setdefault(name.strip().rsplit("/", 1)[-1], email.strip().casefold())
    return latest


class Gate:
    """What one hook call or ``tether inject`` may put in a prompt (git is asked at most once,
    and only when other authors' memories are held back)."""

    def __init__(self, project: MemoryStore | None, warn: Warn) -> None:
        self.project = project
        root = project.repo_root if project is not None else None
        self.open = inject_others(root, warn)
        self._mine: set[str] | None = None

    def _mine_names(self) -> set[str]:
        if self._mine is None:
            self._mine = set()
            project = self.project
            if project is not None and project.repo_root is not None and project.exists:
                root = project.repo_root
                me = (_git(root, "config", "user.email") or "").strip().casefold()
                latest = latest_authors(root, project.location.memories_dir)
                if latest is not None:
                    names = [s.name for s in project.folder.scan()]
                    self._mine = {n for n in names if n not in latest or (me and latest[n] == me)}
        return self._mine

    def allows(self, memory: Memory, scope: str) -> bool:
        """Whether a memory of ``scope`` may be injected."""
        if self.open or scope != "project" or self.project is None:
            return True
        try:
            name = self.project.file_name_of(memory.id)
        except Exception:  # gone since recall ran: nothing to inject
            return False
        return name in self._mine_names()

    def hits(self, hits: Sequence[Hit]) -> list[Hit]:
        """The hits that may be injected, in order; when some are held back, the others
        spread over their files among themselves (a hit held back takes nothing from them)."""
        allowed = [h for h in hits if self.allows(h.memory, h.scope)]
        return allowed if len(allowed) == len(hits) else respread(allowed)

    def memories(self, memories: Iterable[Memory], scope: str = "project") -> list[Memory]:
        """The memories of ``scope`` that may be injected, in order."""
        return [m for m in memories if self.allows(m, scope)]
