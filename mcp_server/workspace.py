"""What the server works on: the stores of its directory, its session, and one call at a time.

The SDK runs each tool call on a worker thread; the stores share one SQLite connection each, so
:meth:`Workspace.run` lets one call in at a time. Before each call the memory folders are looked
at (one ``stat`` each): memories written by the CLI, a language server or a person since the
last call are indexed before the call reads them.
"""

from __future__ import annotations

import sys
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from recall.errors import NotFound
from recall.folder_watch import FolderWatch
from recall.kept_engine import KeptEngines
from recall.model import Memory
from recall.service import FolderStores
from recall.store import MemoryStore

T = TypeVar("T")


def _stderr_notice(message: str) -> None:
    """A store's notice (a settings key ignored, a store read-only): stdout carries the
    protocol, so notices go to stderr, where the client keeps the server's log."""
    print(f"tether: {message}", file=sys.stderr)


class Workspace:
    """The project store of ``cwd``'s repository, the global store and the server's session."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd.resolve()
        self.session_id = f"mcp-{uuid.uuid4().hex[:12]}"
        """One session per server lifetime: each ``memory_recall`` counts one turn of it."""
        self.folder = FolderStores(self.cwd, notice=_stderr_notice)
        self.engines = KeptEngines()
        """The recall engines over these stores, kept between calls (their word counts,
        vectors and commit times), each made current before it ranks."""
        self._lock = threading.Lock()
        self._watch = FolderWatch()

    # -- the stores ------------------------------------------------------------------------

    def project(self) -> MemoryStore:
        """The project store; :class:`NotFound` with what to do when there is no repository."""
        try:
            return self.folder.project()
        except NotFound:
            raise NotFound(
                f"{self.cwd} is not inside a git repository, so there is no project store "
                "and no files to name; start `tether mcp` in the repository (or "
                "`tether -C DIR mcp`). Without one, write with scope 'global' and recall by prompt"
            ) from None

    def global_store(self) -> MemoryStore:
        """The user's global store."""
        return self.folder.global_store()

    def stores(self, scope: str = "all") -> list[MemoryStore]:
        """The stores of ``scope``: ``project``, ``global`` or ``all`` (project first)."""
        if scope == "project":
            return [self.project()]
        if scope == "global":
            return [self.global_store()]
        return self.folder.stores("all")

    def find(self, ref: str) -> tuple[MemoryStore, Memory]:
        """A memory by id or unique id prefix, project store first."""
        for store in self.stores():
            memory = store.find(ref)
            if memory is not None:
                return store, memory
        for store in self.stores():
            for problem in store.problems() if store.exists else []:
                if problem.path.name.lower().startswith(ref.strip().lower()):
                    raise NotFound(
                        f"memory {ref!r} cannot be loaded: {problem}; its file must be fixed "
                        "by hand (`tether doctor` lists every file that cannot be loaded)"
                    )
        raise NotFound(
            f"no memory {ref!r} in the project or the global store; "
            "memory_recall and memory_list show the ids there are"
        )

    # -- one call at a time ----------------------------------------------------------------

    def run(self, operation: Callable[..., T], /, **arguments: object) -> T:
        """Run ``operation(self, **arguments)`` alone, after catching up with the disk."""
        with self._lock:
            self.catch_up()
            return operation(self, **arguments)

    def catch_up(self) -> None:
        """Re-read the stores whose memory folder changed since the last call (one ``stat``
        each, :mod:`recall.folder_watch`). The first look only records the state (a store syncs
        when it opens). A folder taken away (a branch switch, a clean) lets go of its index,
        which no longer holds what the folder does: the store reads as empty until it is back."""
        for change in self._watch.changes(self.stores()):
            store = change.store
            if change.appeared or change.vanished:
                # created since: the empty in-memory stand-in gives way to the real index;
                # taken away: the index left behind gives way to an empty stand-in
                store.close()
                self.engines.forget()
            elif store.exists:
                store.refresh()
            if change.vanished:
                _stderr_notice(
                    f"{store.location.memories_dir} is gone (a branch switch, a clean?); its "
                    "memories are not served until it is back"
                )

    def close(self) -> None:
        """Close every store."""
        with self._lock:
            self.engines.forget()
            self.folder.close()
