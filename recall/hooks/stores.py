"""The stores one hook call reads and writes: the session's project store (and the user's
global one for prompts), and for an edit in a nested repository that repository's store too."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall.hooks.edited import nested_locations
from recall.hooks.input import Skip
from recall.hooks.logfile import _notice, _say

if TYPE_CHECKING:
    from recall.locations import Location
    from recall.store import MemoryStore

GUARD_BUSY_MS: Final = 1_000
"""How long a hook waits for another writer of the store (its lock, the index): the answer, a
guard's above all, must come well within the agent's hook timeout
(recall.cli.cmd_agent_config.HOOK_TIMEOUT_SECONDS). Past it the hook reads a copy of the index,
and a note lost to a busy index costs a repeated question at most."""


class HookStores:
    """The project store of the session's repository (the one holding ``cwd``), opened for one
    hook call, and, when ``file`` (an edited file) lies in nested repositories inside it that
    have stores of their own, those stores too (:attr:`nested`, innermost first;
    :func:`recall.hooks.edited.nested_locations`)."""

    def __init__(self, cwd: Path, file: str | None = None) -> None:
        from recall.containment import UnsafeStore
        from recall.errors import NotFound
        from recall.locations import StoreInGitFolder, WorkTreeOfAnother

        try:
            location = _hook_location(cwd.resolve())
        except UnsafeStore as error:  # logged to the user's own folder, never the repository's
            _notice(str(error))
            raise Skip("the project store is unsafe") from None
        except WorkTreeOfAnother as error:  # the person must fix the setting: said, not a block
            _say(f"tether hook: {error} (the hook did nothing)")
            _notice(str(error))
            raise Skip("the work tree is another repository's") from None
        except StoreInGitFolder:  # the commands say so; a hook never fails the agent
            raise Skip("the project store is in git's own folder") from None
        except (NotFound, OSError):
            raise Skip("cwd is outside any repository") from None
        self.opened: list[MemoryStore] = []
        self.project = self._open(location)
        if not self.project.exists:
            self.close()
            raise Skip("no project store here")
        self.nested: list[MemoryStore] = []
        try:  # whatever goes wrong here, the session's store still answers
            for other in nested_locations(location, cwd, file, _notice) if file else ():
                self.nested.append(self._open(other))
        except Exception as error:
            _notice(f"the nested repositories' stores of {file} were left out ({error})")

    def _open(self, location: Location) -> MemoryStore:
        from recall.kept_engine import open_store

        store = open_store(location, _notice)
        store.wait = GUARD_BUSY_MS / 1000
        self.opened.append(store)
        return store

    def answering(self) -> list[MemoryStore]:
        """The stores an edit is asked of: the session's first, then the nested ones."""
        return [self.project, *self.nested]

    def global_store(self) -> MemoryStore | None:
        """The user's global store, opened for this hook; None, said on stderr and in the
        hooks' log, when ``TETHER_HOME`` cannot be used here (a relative path, a file, a folder
        inside the repository): the hook answers from the project's memories alone."""
        from recall.locations import HomeUnusable, global_location, user_wide_unavailable

        try:
            location = global_location(self.project.location.base)
        except HomeUnusable as error:  # said, never stopping: an agent takes exit 2 as a block
            said = f"{user_wide_unavailable(str(error))}; this hook leaves the global store out"
            _say(f"tether hook: {said}")
            _notice(said)
            return None
        store = self._open(location)
        return store if store.exists else None

    def searched(self) -> list[MemoryStore]:
        """The stores a recall reads: the project's, then the user's global one if it exists."""
        other = self.global_store()
        return [self.project] if other is None else [self.project, other]

    def close(self) -> None:
        from recall.kept_engine import close_store

        for store in self.opened:
            close_store(store)

    def __enter__(self) -> HookStores:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _hook_location(cwd: Path) -> Location:
    """The project store an agent's hook run from ``cwd`` answers from: in a clone's ``.git``
    (which a command refuses to run in), its work tree's, whose guards must still ask before an
    edit; elsewhere the store ``cwd`` is in (:func:`recall.locations.project_location`)."""
    from recall.locations import InGitFolder, find_root, project_location

    try:
        return project_location(cwd)
    except InGitFolder:
        root = find_root(cwd)
        if root is None:  # a bare repository: no work tree, no store
            raise
        return project_location(root)
