"""The look through a repository's folders for the repositories nested in it (a folder holding
``.git``), made when a command's memory id is in none of the stores known.

A look is remembered: each folder's mtime and change time, and what its listing held (its
subfolders, whether it holds ``.git``). The next look takes one ``stat`` per folder and lists
again only those whose times moved, or were too recent to trust when taken
(:data:`recall.folder_watch.RACY_NS`): a folder made, taken away or renamed, a ``.git`` set up,
all change the times of the folder holding it. So a look finds what a new walk would, a
repository set up since the last one included, and an unchanged tree is not listed again.
"""

from __future__ import annotations

import collections
import os
import time
from dataclasses import dataclass

from recall.folder_watch import RACY_NS
from recall.repo import TETHER_DIR

NESTED_LOOK_FOLDERS = 2000
"""Folders looked through, per workspace root, for the repositories nested in it when a
command's memory id is in none of the stores known: enough for a source tree a few levels
deep, few enough that a tree a build or a package manager filled is not walked whole."""

SKIPPED = frozenset({".git", TETHER_DIR})
"""Folders the look for nested repositories never enters: git's own, and a store's."""


@dataclass(frozen=True)
class _Listed:
    """One folder as last listed: its times then, and what the listing held."""

    mtime: int
    ctime: int
    racy: bool
    """Whether its times were too recent to trust (listed again at the next look)."""
    subfolders: tuple[str, ...]
    holds_git: bool


@dataclass(frozen=True)
class Found:
    """What one look found: the folders of the nested repositories (those holding ``.git``,
    breadth first), and whether the repository had more folders than the look goes through."""

    repositories: list[str]
    cut_short: bool


class NestedLook:
    """The look for the repositories nested in the one at ``base``, remembered between looks."""

    def __init__(self, base: str) -> None:
        self.base = base
        self._listed: dict[str, _Listed] = {}

    def look(self) -> Found:
        """The repositories nested below :attr:`base`: its folders breadth first, up to
        :data:`NESTED_LOOK_FOLDERS`, never into git's folder, a store or a link; a folder that
        cannot be read is passed over. A folder unchanged since the last look is not listed."""
        now = time.time_ns()  # before any stat: a change during the look is a recent one
        listed: dict[str, _Listed] = {}
        repositories: list[str] = []
        queue = collections.deque([self.base])
        while queue:
            if len(listed) == NESTED_LOOK_FOLDERS:
                self._listed = listed
                return Found(repositories, cut_short=True)
            folder = queue.popleft()
            seen = self._list(folder, self._listed.get(folder), now)
            if seen is None:
                continue
            listed[folder] = seen
            if seen.holds_git and folder != self.base:
                repositories.append(folder)
            queue.extend(seen.subfolders)
        self._listed = listed
        return Found(repositories, cut_short=False)

    @staticmethod
    def _list(folder: str, before: _Listed | None, now: int) -> _Listed | None:
        """``folder`` as it is: ``before`` when its times have not moved since that listing
        (and were old enough then to be trusted), else listed again; None when it is gone."""
        try:
            st = os.stat(folder)
        except OSError:
            return None
        times = (st.st_mtime_ns, st.st_ctime_ns)
        if before is not None and not before.racy and (before.mtime, before.ctime) == times:
            return before
        racy = now - max(times) < RACY_NS
        try:  # stat first: a change after it moves the times the next look compares
            with os.scandir(folder) as entries:
                names, subfolders = set(), []
                for entry in entries:
                    names.add(entry.name)
                    if entry.name not in SKIPPED and entry.is_dir(follow_symlinks=False):
                        subfolders.append(os.path.join(folder, entry.name))
        except OSError:  # unreadable: nothing below it, listed again once its times move
            return _Listed(times[0], times[1], racy, (), False)
        return _Listed(times[0], times[1], racy, tuple(subfolders), ".git" in names)
