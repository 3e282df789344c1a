"""What the genome knows of the repository's submodules: their folders as the last refresh
listed them, which of them is not checked out here, and the names a file in one had through
its folder's renames (git's history renames a submodule moved to another folder, never the
files in it).

Mixed into :class:`~recall.genome.genome.Genome`, which provides the repository root, the kept
state, and the rename chains (``_follow``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall.genome.names import submodule_folders
from recall.submodule_names import submodule_left, submodule_of, submodule_steps


class SubmoduleNames:
    """A repository's submodules and their files' names, no git run."""

    repo_root: Path | None
    _submodules: list[str] | None

    if TYPE_CHECKING:  # provided by the genome this is mixed into

        def _follow(self, walk: Callable[[Any], Any]) -> Any: ...

        def _stored_state(self) -> dict[str, str]: ...

    def _follow_one(self, walk: str) -> Callable[[str], Any]:
        """One walk of the rename index (``forward``, ``backward_steps``, ``left_step``) of a
        name, as :meth:`_follow` makes it."""
        return lambda name: self._follow(lambda renames: getattr(renames, walk)(name))

    def submodule_folders(self) -> list[str]:
        """The submodules' folders the last refresh listed (their files are the repository's,
        though git lists none of them)."""
        if self._submodules is None:
            self._submodules = submodule_folders(self._stored_state())
        return self._submodules

    def unopened_submodule(self, path: str) -> str | None:
        """The folder of the submodule ``path`` lies in, when the last refresh listed it and it
        is not checked out here (no repository in its folder: a clone made without
        ``--recurse-submodules``); None for any other path. No git run: one ``stat``."""
        folder = submodule_of(path, self.submodule_folders())
        if folder is None or self.repo_root is None:
            return None
        return None if os.path.lexists(self.repo_root / folder / ".git") else folder

    def submodule_steps(self, path: str) -> list[tuple[str, int]]:
        """For a file in a submodule moved from another folder, the steps of that folder's
        renames, each name the file's name in it
        (:func:`recall.submodule_names.submodule_steps`); none for any other file."""
        return submodule_steps(path, self.submodule_folders(), self._follow_one("backward_steps"))

    def submodule_left(self, path: str) -> tuple[str, int] | None:
        """For a file in a submodule's folder that another submodule was renamed away from, the
        step of :func:`recall.file_names.left_step` (``path`` and that rename's commit
        number); None for any other file."""
        return submodule_left(path, self.submodule_folders(), self._follow_one("left_step"))
