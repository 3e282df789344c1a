"""What the server works on: the stores of its directory, its session, and one call at a time.

The SDK runs each tool call on a worker thread; the stores share one SQLite connection each, so
:meth:`Workspace.run` lets one call in at a time. Before each call the memory folders are looked
at (one ``stat`` each): memories written by the CLI, a language server or a person since the
last call are indexed before the call reads them.

Another Tether process holding a store (a reindex, an import: :mod:`recall.store.busy`) is never
waited for with a call let in: a read answers from the index as last committed, saying so in
its ``notes``, and what changed meanwhile is read once the store is free; a write waits for it
before it is let in (:meth:`Workspace.run_write`), so the calls after it are answered meanwhile.
A call its client cancelled before it was let in (:mod:`mcp_server.calls`) is not let in.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from recall.errors import NotFound, StoreBusy
from recall.folder_watch import FolderWatch
from recall.kept_engine import KeptEngines
from recall.locations import PROJECT, RepositoryGone, not_a_folder, repository_gone
from recall.model import Memory
from recall.repo import find_root
from recall.service import FolderStores
from recall.store import MemoryStore
from recall.store.busy import (
    READ_WAIT_SECONDS,
    RETRY,
    WRITE_WAIT_SECONDS,
    held_elsewhere,
    wait_until_free,
)
from recall.work_tree import still_root

T = TypeVar("T")


class CallCancelled(Exception):
    """A call cancelled by its client before its operation began: nothing was done."""


def _never() -> bool:
    return False


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
        self.root = find_root(self.cwd)
        """The repository the server was started in, looked at again before each project call
        (:meth:`check_repository`): moved or deleted, its old path must not be written."""
        self.engines = KeptEngines()
        """The recall engines over these stores, kept between calls (their word counts,
        vectors and commit times), each made current before it ranks."""
        self._lock = threading.Lock()
        self._watch = FolderWatch()
        self._unsynced: dict[int, MemoryStore] = {}
        """Stores whose folder changed while another process held them: read on as last
        committed, and synced at the first call after they are free."""

    # -- the stores ------------------------------------------------------------------------

    def check_repository(self) -> None:
        """Raise :class:`RepositoryGone` when the repository the server started in is gone:
        its folder moved or deleted, or no longer a repository by the test that found it (a
        ``.git`` or a ``.tether/`` in it). Two ``stat`` calls at most."""
        root = self.root
        if root is None or _still_a_repository(root):
            return
        raise RepositoryGone(
            f"{repository_gone(root)}; this MCP server must be restarted there (your MCP "
            "client's restart, or a new session); writes with scope 'global' still work"
        )

    def project(self) -> MemoryStore:
        """The project store; :class:`NotFound` with what to do when there is no repository,
        :class:`RepositoryGone` when the repository is gone since the server started."""
        self.check_repository()
        try:
            return _served(self.folder.project())
        except NotFound:
            raise NotFound(
                f"{self.cwd} is not inside a git repository, so there is no project store "
                "and no files to name; start `tether mcp` in the repository (or "
                "`tether -C DIR mcp`). Without one, write with scope 'global' and recall by prompt"
            ) from None

    def global_store(self) -> MemoryStore:
        """The user's global store."""
        return _served(self.folder.global_store())

    def stores(self, scope: str = "all") -> list[MemoryStore]:
        """The stores of ``scope``: ``project``, ``global`` or ``all`` (project first)."""
        if scope == "project":
            return [self.project()]
        if scope == "global":
            return [self.global_store()]
        self.check_repository()
        return [_served(store) for store in self.folder.stores("all")]

    def _live_stores(self) -> list[MemoryStore]:
        """The stores there are to look at: without the project's when its repository is
        gone (a global write is let in all the same)."""
        try:
            return self.stores()
        except RepositoryGone:
            return self.stores("global")

    def busy_notes(self, stores: list[MemoryStore]) -> list[str]:
        """What a read says of each of ``stores`` another process held when it read: answered
        from its index as last committed, without the memory files changed since."""
        return [
            f"the {store.scope} store {store.location.base} is busy with another Tether process "
            "(a reindex or an import, most likely): answered from its index as last committed, "
            "without the memory files changed since; they are read once it is free"
            for store in stores
            if store.busy or id(store) in self._unsynced
        ]

    def folder_notes(self, stores: list[MemoryStore]) -> list[str]:
        """What a read says of each of ``stores`` whose memory folder's name a file (or a
        link) has taken: nothing is read there, as a write says of it."""
        return [
            not_a_folder(store.location.memories_dir)
            for store in stores
            if not store.exists and os.path.lexists(store.location.memories_dir)
        ]

    def no_project_notes(self, stores: list[MemoryStore]) -> list[str]:
        """What a list by file says when none of ``stores`` is a project store to hold the
        memories naming it (the server started outside any repository)."""
        if any(store.scope == PROJECT for store in stores):
            return []
        return [
            f"{self.cwd} is not inside a git repository, so file is matched against the global "
            "store's memories only; start `tether mcp` in the repository (or `tether -C DIR "
            "mcp`) to list the project's"
        ]

    def find(self, ref: str) -> tuple[MemoryStore, Memory]:
        """A memory by id or unique id prefix, project store first (a prefix held in both
        stores is ambiguous, see :func:`recall.store.across.find_across`)."""
        from recall.store.across import find_across

        found = find_across(self.stores(), ref)
        if found is not None:
            return found
        for store in self.stores():
            for problem in store.problems() if store.exists else []:
                if problem.path.name.lower().startswith(ref.strip().lower()):
                    raise NotFound(
                        f"memory {ref!r} cannot be loaded: {problem}; its file must be fixed "
                        "by hand (`tether doctor` lists every file that cannot be loaded)"
                    )
        blocked = "".join(f"; {note}" for note in self.folder_notes(self.stores()))
        raise NotFound(
            f"no memory {ref!r} in the project or the global store{blocked}; "
            "memory_recall and memory_list show the ids there are"
        )

    # -- one call at a time ----------------------------------------------------------------

    def run(
        self,
        operation: Callable[..., T],
        /,
        *,
        cancelled: Callable[[], bool] = _never,
        **arguments: object,
    ) -> T:
        """Run ``operation(self, **arguments)`` alone, after catching up with the disk;
        :class:`CallCancelled` instead when ``cancelled()`` by the time it is let in."""
        with self._lock:
            if cancelled():
                raise CallCancelled
            self.catch_up()
            return operation(self, **arguments)

    def run_write(
        self,
        operation: Callable[..., T],
        /,
        *,
        cancelled: Callable[[], bool] = _never,
        **arguments: object,
    ) -> T:
        """:meth:`run` for an operation that writes a store: let in once no other process holds
        a store, waited for before it is let in (the calls after it are answered meanwhile);
        let in again if another writer came first. Past
        :data:`recall.store.busy.WRITE_WAIT_SECONDS`: :class:`StoreBusy` naming the busy
        stores, nothing written. Once ``cancelled()``, the wait ends in :class:`CallCancelled`,
        nothing written."""

        def held() -> list[MemoryStore]:
            if cancelled():
                raise CallCancelled
            return self._held()

        deadline = time.monotonic() + WRITE_WAIT_SECONDS
        while True:
            wait_until_free(held, _stderr_notice, wait=deadline - time.monotonic())
            try:
                return self.run(operation, cancelled=cancelled, **arguments)
            except StoreBusy as error:  # another writer took the store since the look
                if time.monotonic() < deadline:
                    continue
                if RETRY in str(error):  # said already (recall.store.busy.busy_message)
                    raise
                raise StoreBusy(f"{error}; nothing was written; {RETRY}") from None

    def _held(self) -> list[MemoryStore]:
        with self._lock:  # the stores are made on first use: never by two threads at once
            stores = self._live_stores()
        return [store for store in stores if held_elsewhere(store)]

    def catch_up(self) -> None:
        """Re-read the stores whose memory folder changed since the last call (one ``stat``
        each, :mod:`recall.folder_watch`). The first look only records the state (a store syncs
        when it opens). A folder taken away (a branch switch, a clean) lets go of its index,
        which no longer holds what the folder does: the store reads as empty until it is back.
        A store another process holds is read on as last committed (a copy of its index, when it
        was opened meanwhile) and caught up with at the first call after it is free."""
        stores = self._live_stores()
        for store in stores:
            if store.busy and not held_elsewhere(store):  # served from a copy: the index again
                store.close()
                self.engines.forget()
        for change in self._watch.changes(stores):
            store = change.store
            if change.appeared or change.vanished:
                # created since: the empty in-memory stand-in gives way to the real index;
                # taken away: the index left behind gives way to an empty stand-in
                store.close()
                self.engines.forget()
                self._unsynced.pop(id(store), None)
            elif store.exists:
                self._unsynced[id(store)] = store
            if change.vanished:
                _stderr_notice(
                    f"{store.location.memories_dir} is gone (a branch switch, a clean?); its "
                    "memories are not served until it is back"
                )
        for key, store in list(self._unsynced.items()):
            if store.busy or held_elsewhere(store):
                continue  # read on as last committed until the other process lets it go
            try:
                store.refresh()
            except StoreBusy:  # another writer took it first: the next call
                continue
            del self._unsynced[key]

    def close(self) -> None:
        """Close every store."""
        with self._lock:
            self._close()

    def close_if_free(self, wait: float) -> bool:
        """Close every store unless a call still holds them after ``wait`` seconds; tell
        whether they were closed (a call's operation is never cut short by it)."""
        if not self._lock.acquire(timeout=wait):
            return False
        try:
            self._close()
        finally:
            self._lock.release()
        return True

    def _close(self) -> None:
        self.engines.forget()
        self.folder.close()


def _still_a_repository(root: Path) -> bool:
    """Whether ``root`` is still what :func:`recall.repo.find_root` took it for."""
    return still_root(str(root))


def _served(store: MemoryStore) -> MemoryStore:
    """``store`` as a call reads it: another process holding it is waited for as long as the
    hooks wait, then read on from the index as last committed (a write waits before it is
    let in: :meth:`Workspace.run_write`)."""
    store.wait = READ_WAIT_SECONDS
    return store
