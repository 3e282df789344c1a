"""Background indexing: the genome refresh runs on its own thread with its own index connection,
reports ``$/progress`` (cancellable) where the client supports it, and never holds up the first
diagnostics, which use whatever the index already knows (or the working tree)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server import capabilities, diagnostics, watching
from lsp_server.roots import Root
from recall.genome import Genome
from recall.genome.catch_up import BEHIND, history_lag
from recall.genome.headref import read_head
from recall.genome.summary import IndexSummary
from recall.index import db
from recall.index.schema import SCHEMA_VERSION
from recall.locations import Location
from recall.store import MemoryStore

if TYPE_CHECKING:
    from lsp_server.server import TetherServer

Report = Callable[[str, int, int | None], None]
REPORT_SECONDS = 0.1
"""Least time between two progress reports: smooth in a status bar, quiet on the wire."""


class IndexCancelled(Exception):
    """The client cancelled the indexing (or the server is shutting down)."""


def refresh_genome(
    location: Location, cancelled: Callable[[], bool], report: Report
) -> IndexSummary | None:
    """Bring a project's genome up to date; None when it already was.

    Runs on the indexing thread, on a connection of its own. Raises :class:`IndexCancelled`
    as soon as ``cancelled()`` turns true; the genome writes nothing until the very end, so a
    cancelled refresh leaves the index as it was.
    """
    if cancelled():
        raise IndexCancelled
    if not _stale(location):
        return None
    store = MemoryStore(location, notice=lambda message: None)
    try:
        genome = Genome(location.repo_root, store.conn)
        if not genome.is_stale():
            return None

        def progress(description: str, done: int, total: int | None) -> None:
            if cancelled():
                raise IndexCancelled
            report(description, done, total)

        return genome.refresh(progress=progress)
    finally:
        store.close()


def _stale(location: Location) -> bool:
    """Whether the genome needs a refresh, read from the index alone: opening the store would
    first check every memory file against the index, which the genome does not read (tens of
    thousands of stats in a large store, on every start). An index that cannot be opened or
    read this way, or whose schema version is not this Tether's (the store's opening would
    migrate or rebuild it, the genome with it), counts as stale."""
    path = location.index_path
    if not path.is_file():
        return True
    try:
        conn = db.connect(path)
    except (db.IndexUnusable, sqlite3.Error):
        return True
    try:
        if db.schema_version(conn) != SCHEMA_VERSION:  # the store's opening migrates or rebuilds
            return True
        return Genome(location.repo_root, conn).is_stale()
    except (sqlite3.Error, ValueError):
        return True
    finally:
        conn.close()


class Indexer:
    """Runs genome refreshes for the roots, one at a time, off the main thread."""

    def __init__(self, ls: TetherServer) -> None:
        self.ls = ls
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tether-index")
        self.running: set[str] = set()
        self.stopping = False
        self.heads_tried: dict[str, str] = {}
        """Per project, the HEAD a catch-up on open was last started for: one that failed is
        not started again at every open, only once HEAD moves on."""

    def start(self, root: Root) -> None:
        """Start refreshing a root's genome in the background (no-op without a project)."""
        location = root.location
        if (
            self.stopping
            or location is None
            or root.project is None
            or not root.project.exists
            or location.repo_root is None
            or str(location.base) in self.running
        ):
            return
        self.running.add(str(location.base))
        self.ls.spawn(self._run(root, location))

    async def _begin(self) -> str | None:
        if not capabilities.can_report_progress(self.ls.client_capabilities):
            return None
        token = f"tether-index-{uuid.uuid4().hex[:8]}"
        try:
            await self.ls.work_done_progress.create_async(token)
        except Exception as error:
            self.ls.warn(f"progress not shown ({error})")
            return None
        self.ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="Tether: indexing the repository",
                message="reading git history",
                cancellable=True,
                percentage=0,
            ),
        )
        return token

    def _cancelled(self, token: str | None) -> bool:
        if self.stopping:
            return True
        future = self.ls.work_done_progress.tokens.get(token) if token else None
        return bool(future is not None and future.cancelled())

    async def _run(self, root: Root, location: Location) -> None:
        token = await self._begin()
        loop = asyncio.get_running_loop()
        last = [0.0]

        def report(description: str, done: int, total: int | None) -> None:
            now = time.monotonic()
            if token is None or now - last[0] < REPORT_SECONDS:
                return
            last[0] = now
            percent = min(100, int(done * 100 / total)) if total else None
            value = types.WorkDoneProgressReport(message=description, percentage=percent)
            loop.call_soon_threadsafe(self.ls.work_done_progress.report, token, value)

        outcome = "done"
        try:
            summary = await loop.run_in_executor(
                self.pool, refresh_genome, location, lambda: self._cancelled(token), report
            )
        except IndexCancelled:
            outcome = "cancelled"
        except Exception as error:  # git or the index failed: recall goes on without it
            outcome = "failed"
            self.ls.warn(f"indexing {location.repo_root} failed: {error}")
        else:
            if summary is not None:
                for line in summary.notices:
                    self.ls.log(line)
                root.signals_changed()
                if root in list(self.ls.roots):
                    diagnostics.republish(self.ls, root)
                outcome = f"done: {summary.commits_read} commits, {summary.files_tracked} files"
            else:
                outcome = "up to date"
        finally:
            self.running.discard(str(location.base))
        if not self.stopping:
            watching.poll(self.ls)  # a folder change left unsynced while the refresh held it
        indexed = outcome.startswith("done") or outcome == "up to date"
        if indexed and not self.stopping and root in list(self.ls.roots):
            # on the genome just refreshed or found up to date; not after a cancelled or
            # failed indexing, whose genome may be partial and nothing would clear them
            self.ls.warm_up.start(root)
        if token is not None and not self.stopping:
            self.ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=outcome))

    def stop(self) -> None:
        """Cancel running refreshes and let the thread go."""
        self.stopping = True
        self.pool.shutdown(wait=False, cancel_futures=True)


def refresh_if_stale(ls: TetherServer, root: Root) -> None:
    """Start a background refresh when the repository moved (new commits, a checkout)."""
    project = root.project
    if project is None or not project.exists or root.repo_root is None:
        return
    if project.read_only is not None:  # a refresh could not be kept: recall uses what it has
        return
    if Genome(root.repo_root, project.conn).is_stale():
        ls.indexer.start(root)


def catch_up_on_open(ls: TetherServer, root: Root) -> None:
    """Start a background refresh when HEAD moved since the genome was last refreshed (a
    commit, a checkout, a rename committed in a terminal), so a document just opened gets
    the renames and history of the commits since, published again once they are read.

    Reads a few files under ``.git`` and the genome's bookkeeping, no git process; a genome
    never built is left to the start-up indexing (``indexOnStart``), git's index moving alone
    (a ``git add``) to the end of the turn (:func:`refresh_if_stale`)."""
    project = root.project
    location = root.location
    repo_root = root.repo_root
    if project is None or not project.exists or repo_root is None or location is None:
        return
    if project.read_only is not None:  # a refresh could not be kept: recall uses what it has
        return
    try:
        behind = history_lag(repo_root, project.conn) == BEHIND
    except sqlite3.Error:  # the store is held or unreadable now: the next open looks again
        return
    if not behind:
        return
    current = read_head(repo_root)
    head = (current.head or "") if current is not None else ""
    base = str(location.base)
    if ls.indexer.heads_tried.get(base) == head:
        return
    ls.indexer.heads_tried[base] = head
    ls.indexer.start(root)
