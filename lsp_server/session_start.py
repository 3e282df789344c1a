"""The session-start pass of a server lifetime: once per workspace root, in the background.

A server lifetime is one session (``docs/lifecycle.md``). When a root is set up, the shared
pass (:mod:`recall.lifecycle.session_start`) registers the session in the root's index, archives the
memories disuse has retired and judges the cleanup hint. It runs on a thread of its own with
connections of its own, so the first diagnostics never wait for it; when it archived something,
cached recall is dropped and every open file is published again without those memories.

The cleanup hint is shown at most once per server lifetime, as an Info ``window/showMessage``,
and only while the hint policy lets proactive hints through for the session: not once the user
runs memory commands on their own (rule 1), nor when they turned hints off (a session budget of
0). It is a note about the store, not a memory, so it spends none of the budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from lsp_server import diagnostics, watching
from lsp_server.roots import Root
from recall.lifecycle.session_start import SessionStart, archived_line, cleanup_line, start_session
from recall.locations import Location
from recall.repo_signals import open_repo_signals
from recall.store import MemoryStore
from recall.store_settings import StoreSettings, store_settings

if TYPE_CHECKING:
    from lsp_server.server import TetherServer

ORIGIN = "lsp"


def run_pass(
    project: Location | None,
    global_store: Location | None,
    session: str,
    settings: StoreSettings,
    notice: Callable[[str], None],
) -> SessionStart:
    """The pass over a root's stores, on connections opened (and closed) here: it runs on the
    session-start thread, and a :class:`MemoryStore` is used by one thread at a time.

    Sessions are recorded where the root keeps its hint state: the project index, else the
    global one (see :class:`lsp_server.hint_state.KeptHints`).
    """
    own = MemoryStore(project, notice=notice) if project is not None else None
    shared = MemoryStore(global_store, notice=notice) if global_store is not None else None
    stores = [store for store in (own, shared) if store is not None]

    def genome_for(store: MemoryStore) -> Any | None:
        # The cached genome, never refreshed here: the indexer refreshes it in the background,
        # and a genome not yet built still tells a dead file from the working tree.
        if store is not own or own is None:
            return None
        return open_repo_signals(own, notice=notice, refresh=False)

    try:
        return start_session(
            stores[0], stores, session, origin=ORIGIN, settings=settings, genome_for=genome_for
        )
    finally:
        for store in stores:
            store.close()


def hints_on(root: Root) -> bool:
    """Whether the hint policy lets a proactive note through in this root's session now."""
    if root.ledger.policy.budget == 0:
        return False
    return not root.hints.state().self_serve


def cleanup_message(root: Root, result: SessionStart) -> str:
    """The cleanup hint as the editor shows it: the engine's line and where to run it."""
    return f"{cleanup_line(result.cleanup)} Repository: {root.base}"


class SessionStarter:
    """Runs the pass once per root per server lifetime, off the main thread."""

    def __init__(self, ls: TetherServer) -> None:
        self.ls = ls
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tether-session")
        self.started: set[str] = set()
        """Roots (by base folder) the pass ran or is running for."""
        self.cleanup_shown = False
        self.stopping = False

    def start(self, root: Root) -> None:
        """Start the pass for a root in the background, unless it already ran this lifetime."""
        key = str(root.base)
        if self.stopping or key in self.started:
            return
        self.started.add(key)
        settings = store_settings(root.repo_root, self.ls.settings_problem)
        self.ls.spawn(self._run(root, settings))

    async def _run(self, root: Root, settings: StoreSettings) -> None:
        notices: list[str] = []
        loop = asyncio.get_running_loop()
        project = root.project.location if root.project is not None else None
        shared = root.global_store.location if root.global_store is not None else None
        try:
            result = await loop.run_in_executor(
                self.pool,
                run_pass,
                project,
                shared,
                self.ls.session_id,
                settings,
                notices.append,
            )
        except Exception as error:  # a store that cannot be written: the session goes on
            if not self.stopping:
                self.ls.warn(f"session start in {root.base} failed: {error}")
                watching.poll(self.ls)
            return
        if self.stopping:
            return
        watching.poll(self.ls)  # a folder change left unsynced while the pass held the store
        for line in notices:
            self.ls.log(line)
        self._report(root, result)

    def _report(self, root: Root, result: SessionStart) -> None:
        """Tell what the pass did: archives in the log (and gone from the diagnostics), the
        cleanup hint shown once."""
        if result.archived_count:
            ids = ", ".join(a.memory_id for items in result.archived.values() for a in items)
            line = archived_line(result.archived_count).removeprefix("tether: ")
            self.ls.log(f"{line}: {ids}")
            # The global store is shared by every root: drop every root's cached recall.
            for each in self.ls.roots:
                each.bump()
            diagnostics.republish(self.ls)
        cleanup = result.cleanup
        if not cleanup.due:
            return
        message = cleanup_message(root, result)
        self.ls.log(message.removeprefix("tether: "))
        if not self.cleanup_shown and hints_on(root):
            self.cleanup_shown = True
            self.ls.show_info(message)

    def stop(self) -> None:
        """Let the thread go; a pass still running finishes, its report is dropped."""
        self.stopping = True
        self.pool.shutdown(wait=False, cancel_futures=True)
