"""Workspace roots: one project store (and the user's global store) per repository in view.

Folders of the same repository share one root. Everything here runs on the server's main
thread: a :class:`MemoryStore` is used by one thread at a time, and the background indexer opens
its own connection.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_server.configuration import Settings
from lsp_server.draft_files import drafts_dir
from lsp_server.hint_state import KeptHints
from lsp_server.store_busy import STORE_WAIT_SECONDS
from lsp_server.usage_counts import UsageCounts
from recall.clock import day_number, now
from recall.errors import BadInput, StoreBusy
from recall.folder_watch import FolderWatch
from recall.genome import Genome
from recall.locations import HomeUnusable, Location, global_location, user_wide_unavailable
from recall.model import Memory
from recall.policy.hints import HintLedger
from recall.ranking.engine import Hit, Recaller, RepoSignals, WorkingTree
from recall.ranking.query import TOUCH_KINDS
from recall.service import build_recaller
from recall.store import MemoryStore
from recall.store.busy import held_elsewhere

if TYPE_CHECKING:
    from lsp_server.doc_parse import DocumentParse

Notice = Callable[[str], None]


def is_within(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it (lexically, both absolute)."""
    return path == folder or folder in path.parents


def reaches(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it, lexically or once both are resolved: a
    folder opened through a symbolic link holds the files its real path names, and the
    reverse (a path from go-to-definition or a terminal is often the resolved one)."""
    if is_within(path, folder):
        return True
    return is_within(Path(os.path.realpath(path)), Path(os.path.realpath(folder)))


class Root:
    """One repository (or plain folder) of the workspace and the session's state in it."""

    def __init__(
        self, folder: Path, location: Location | None, *, session: str, notice: Notice
    ) -> None:
        self.folders = [folder]
        self.location = location
        self.repo_root = location.repo_root if location else None
        self.notice = notice
        self.project = MemoryStore(location, notice=notice) if location else None
        self.global_store: MemoryStore | None = None
        self.global_unavailable: str | None = None
        """Why the user-wide store is left out of this root, when ``TETHER_HOME`` cannot be
        used here: the project's memories are served without it, and writes to it refused."""
        try:
            home = global_location(self.repo_root or folder)
        except HomeUnusable as error:
            self.global_unavailable = str(error)
        else:
            self.global_store = MemoryStore(home, notice=notice)
        for store in self.stores():  # never wait on the loop for another process's long job
            store.wait = STORE_WAIT_SECONDS
        self.settings = Settings()
        self.ledger = HintLedger(session, origin="lsp", policy=self.settings.policy())
        self.hits: dict[tuple[str, str, int], list[Hit]] = {}
        """Recall's hits by (touch kind, path, limit), for the root's current state."""
        self.candidates: dict[tuple[str, str], list[Hit]] = {}
        """The hits each file may show as diagnostics, by (touch kind, path)."""
        self.category_counts: dict[Path, tuple[str, Counter[tuple[str, bool]]]] = {}
        """Active memories per category in each store (by memory folder), with the state of
        its memories table they were counted in (``recall.index.rows.index_stamp``)."""
        self.parsed_ahead: dict[str, DocumentParse] = {}
        """Parses of files as they are on disk, made by the warm-up for their first open, by
        path (:mod:`lsp_server.warm_up`); the open that finds its text here takes it."""
        self._ranked_on: int | None = None
        """The clock's day the cached hits were ranked on (:meth:`rank_today`)."""
        self.touched: dict[str, str] = {}
        self.edited_since_turn = False
        self.acted_this_turn: set[str] = set()
        self.usage = UsageCounts(self.store_of_scope, self._reopen_copies, notice)
        """How its memories are used, counted without waiting for a busy index."""
        self.hints = KeptHints(self.ledger, self.stores, self._reopen_copies, notice)
        self._recaller: Recaller | None = None
        self._watch = FolderWatch(self.stores())
        """The last look at each memory folder, taken first when the root is made, so that a
        write between then and the first message is seen as one."""
        self.told_broken: set[tuple[str, int, str]] = set()
        """The memory files of its stores that cannot be loaded, as last told (path, line,
        problem; :mod:`lsp_server.broken_files`)."""
        self._unsynced: dict[int, MemoryStore] = {}
        """Changed folders not synced yet because another process holds their store's lock
        (read on from the index as last committed until it is free; lsp_server.store_busy)."""

    # -- identity --------------------------------------------------------------------------

    @property
    def folder(self) -> Path:
        """The first workspace folder of this root."""
        return self.folders[0]

    @property
    def base(self) -> Path:
        """The repository root, or the folder when there is no repository."""
        return self.repo_root or self.folder

    def stores(self) -> list[MemoryStore]:
        """The stores recall reads: project first, then global."""
        return [s for s in (self.project, self.global_store) if s is not None]

    def memory_store_of(self, path: Path) -> MemoryStore | None:
        """The store whose memory folder (or drafts folder) holds ``path`` (a memory document),
        if any. Both sides are compared resolved: a folder opened through a symbolic link names
        its memory files by the link, while the stores know the real path."""
        if path.suffix != ".md":
            return None
        folder = os.path.realpath(path.parent)
        for store in self.stores():
            folders = (store.location.memories_dir, drafts_dir(store.location))
            if folder in {os.path.realpath(f) for f in folders}:
                return store
        return None

    def relative(self, path: Path) -> str | None:
        """``path`` as the stores write it (repo-relative POSIX), None when outside the root."""
        if not any(reaches(path, f) for f in self.folders) and not (
            self.repo_root and reaches(path, self.repo_root)
        ):
            return None
        if self.project is not None:
            try:
                return self.project.normalize_input(str(path), self.folder)
            except BadInput:
                return None
        if is_within(path, self.folder):
            return path.relative_to(self.folder).as_posix()
        real = Path(os.path.realpath(path))
        for folder in (self.folder, *self.folders):
            real_folder = Path(os.path.realpath(folder))
            if is_within(real, real_folder):
                return real.relative_to(real_folder).as_posix()
        return None

    # -- configuration ---------------------------------------------------------------------

    def configure(self, settings: Settings) -> None:
        """Use new settings (the hint policy included) and forget cached results."""
        self.settings = settings
        self.ledger.policy = settings.policy()
        self.bump()

    # -- recall ----------------------------------------------------------------------------

    def bump(self) -> None:
        """Something recall depends on changed: cached hits are stale (and the parses made
        ahead for them are let go: nothing would drop them if their files were never opened)."""
        self.hits.clear()
        self.candidates.clear()
        self.parsed_ahead.clear()

    def rank_today(self) -> None:
        """Drop the hits ranked on another day of the clock: recency and a quiet file's origin
        bonus move with the day, so a session left open overnight ranks afresh."""
        day = day_number(now())
        if day != self._ranked_on:
            self._ranked_on = day
            self.hits.clear()
            self.candidates.clear()

    def signals(self) -> RepoSignals:
        """What the repository knows: the genome cached in the project index, or the tree."""
        project = self.project
        if project is None or not project.exists or self.repo_root is None:
            return WorkingTree(self.base)
        return Genome(self.repo_root, project.conn)

    def recaller(self) -> Recaller:
        """The recaller over this root's stores (rebuilt after indexing or a new store)."""
        if self._recaller is None:
            self._recaller = build_recaller(
                self.stores(), self.project, notice=self.notice, signals=self.signals()
            )
        return self._recaller

    def follow_genome(self) -> bool:
        """Whether the genome in the project index was refreshed by another process (a hook,
        the CLI) since the recaller's read it; if so the recaller is rebuilt on the new one."""
        repo = self._recaller.repo if self._recaller is not None else None
        if isinstance(repo, Genome) and repo.refreshed_elsewhere():
            self.signals_changed()
            return True
        return False

    def signals_changed(self) -> None:
        """The genome was refreshed elsewhere: rebuild the recaller and forget cached hits."""
        self._recaller = None
        self.bump()

    # -- hint state ------------------------------------------------------------------------

    def touch(self, path: str, kind: str) -> None:
        """Record that the session touched ``path`` (open < save < edit)."""
        current = self.touched.get(path)
        if current is None or TOUCH_KINDS.index(kind) > TOUCH_KINDS.index(current):
            self.touched[path] = kind
        if kind == "edit":
            self.edited_since_turn = True

    def end_turn_if_saved(self, path: str) -> bool:
        """A save of a touched file after edits ends the turn; return True when it did."""
        if path not in self.touched or not self.edited_since_turn:
            return False
        self.hints.next_turn()
        self.edited_since_turn = False
        self.acted_this_turn.clear()
        self.bump()  # surfacing counters moved, so the ranking may have too
        return True

    # -- keeping up with the disk ----------------------------------------------------------

    def poll(self, *, force: bool = False) -> bool:
        """Notice memory files added, removed or rewritten by other processes; True if any.

        Writes are atomic renames, which change the folder's mtime: one stat per store (and a
        listing while that mtime is too recent to trust). With ``force`` (a watched-file event)
        every store is re-read, catching in-place edits too. A store another process holds the
        lock of is read on as last committed, and synced at the first message after it is free.
        """
        changed = self._reopen_copies()
        for change in self._watch.changes(self.stores(), force=force):
            if change.appeared or change.vanished:
                self._let_go(change.store, vanished=change.vanished)
                changed = True
            self._unsynced[id(change.store)] = change.store
        for key, store in list(self._unsynced.items()):
            if held_elsewhere(store):
                continue  # synced once the other process lets the store go
            try:
                changed |= self._refresh(store)
            except StoreBusy:  # another writer took the lock first: next message
                continue
            del self._unsynced[key]
        return changed

    def may_have_changed(self) -> bool:
        """Whether :meth:`poll` may find something now: a memory folder changed since it last
        looked, or a store still waits to be synced or opened afresh. A stat or two per store;
        no lock is probed and no file read."""
        stores = self.stores()
        if self._unsynced or any(s.busy for s in stores):
            return True
        return self._watch.moved(stores)

    def busy_elsewhere(self) -> list[MemoryStore]:
        """The stores whose writers' lock another process holds now; a store served from a
        copy whose lock is free again is opened afresh first (see :meth:`poll`)."""
        held = [s for s in self.stores() if held_elsewhere(s)]
        self._reopen_copies(held)  # one look at the locks for both: no write between two
        return held

    def _reopen_copies(self, held: list[MemoryStore] | None = None) -> bool:
        """Close each store served from a copy (its lock was held past its wait when it
        opened) whose lock is free again (not in ``held``, when the caller just looked): its
        next use opens the index itself. True if any."""
        reopened = False
        for store in self.stores():
            free = store not in held if held is not None else not held_elsewhere(store)
            if store.busy and free:
                store.close()
                self._recaller = None
                self.bump()
                reopened = True
        return reopened

    def _let_go(self, store: MemoryStore, *, vanished: bool) -> None:
        """A memory folder created or taken away since the last look: its store is closed at
        once, even while another process holds it (what it read from, an empty stand-in or an
        index the folder no longer backs, must not answer meanwhile); the next use opens it as
        it is now. A folder taken away is said once."""
        store.close()
        self._recaller = None
        self.bump()
        if vanished:
            self.notice(
                f"{store.location.memories_dir} is gone (a branch switch, a clean?); its "
                "memories are not shown until it is back"
            )

    def _refresh(self, store: MemoryStore) -> bool:
        """Re-read a store whose folder changed. Always counts as a change: another process
        (the CLI) may have indexed its own write already, so the sync itself finds nothing."""
        if store.exists:
            store.refresh()
        self.bump()
        return True

    # -- lookups ---------------------------------------------------------------------------

    def find(self, ref: str) -> tuple[MemoryStore, Memory] | None:
        """A memory by id or unique prefix, project store first."""
        for store in self.stores():
            memory = store.find(ref)
            if memory is not None:
                return store, memory
        return None

    def store_of_scope(self, scope: str) -> MemoryStore | None:
        """The store of ``scope`` in this root."""
        return next((s for s in self.stores() if s.scope == scope), None)

    def global_refusal(self) -> str | None:
        """What to answer a command that would use the user-wide store when this root has none
        (``TETHER_HOME`` cannot be used here), naming the variable and what to do; else None."""
        if self.global_unavailable is None:
            return None
        return user_wide_unavailable(self.global_unavailable)

    def close(self) -> None:
        """Write the usage counts and hint choices kept, then close every connection."""
        self.usage.close()
        self.hints.close()
        for store in self.stores():
            store.close()
