"""Opening what the repository knows for recall: the genome when it can be had, else the tree."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from recall.genome import Genome
from recall.index import db
from recall.model import Memory
from recall.ranking.engine import RepoSignals, WorkingTree
from recall.store import MemoryStore


def open_repo_signals(
    project: MemoryStore,
    *,
    notice: Callable[[str], None],
    refresh: bool = True,
    symbols: bool = True,
) -> RepoSignals:
    """The genome of the project's repository, refreshed if stale (incremental, usually cheap).
    Without ``symbols`` (a short-lived process) the refresh leaves the symbol index for the
    next ``tether index`` or language server to bring up to date.

    A store that was never created has no index to cache the genome in; it gets existence
    checks against the working tree only, and so does the user's global store, which belongs
    to no repository (a genome in it would be the history of whichever one it was opened from).
    """
    from recall.locations import GLOBAL

    if not project.exists or project.repo_root is None or project.scope == GLOBAL:
        return WorkingTree(project.repo_root)
    genome = Genome(project.repo_root, project.conn, symbols=symbols)
    if refresh:
        bring_up_to_date(genome, notice=notice)
    return genome


def project_genome(store: MemoryStore, *, notice: Callable[[str], None]) -> RepoSignals | None:
    """The project's genome (:func:`open_repo_signals`) for a project store that exists in a
    repository; None otherwise (the global store, a store never created: no history)."""
    from recall.locations import PROJECT

    if store.scope != PROJECT or not store.exists or store.repo_root is None:
        return None
    return open_repo_signals(store, notice=notice)


def card_genome(
    store: MemoryStore, memory: Memory, *, notice: Callable[[str], None]
) -> RepoSignals | None:
    """The genome a memory's whole card (``tether show``, the MCP ``memory_get``) reads its
    anchors' states and its drift from: :func:`project_genome` for a memory recall may surface;
    None for one out of recall (archived, superseded, pending), whose code is not looked at."""
    return project_genome(store, notice=notice) if memory.is_recallable else None


def with_symbols(
    repo: RepoSignals, *, notice: Callable[[str], None], refresh: bool = True
) -> RepoSignals:
    """``repo``, opened without symbols (:func:`open_repo_signals`), reading the symbol index
    too from now on, as one opened with them does: brought up to date again unless not to
    ``refresh`` (a refresh that left the symbol index behind makes it stale now), ``notice``
    hearing what that has to say. Opening it anew instead would read again what it holds
    already. A working tree has no symbols to read."""
    if isinstance(repo, Genome) and not repo.symbols:
        repo.symbols = True
        if refresh:
            bring_up_to_date(repo, notice=notice)
    return repo


def bring_up_to_date(repo: RepoSignals, *, notice: Callable[[str], None]) -> None:
    """Refresh a genome that is stale (incremental, usually cheap), saying what the refresh
    has to say; a genome kept from an earlier recall also forgets what it read before. A
    working tree has nothing to refresh."""
    if not isinstance(repo, Genome):
        return
    try:
        if not repo.is_stale():
            return
        repo.refresh()
    except sqlite3.OperationalError as error:
        if not db.is_busy(error):
            raise
        # Another process holds the index past this store's wait: recall on the code map as it
        # is (the refresh rolled back) rather than not at all; the next one catches up.
        notice(
            "the code map was not brought up to date: another process is writing the index; "
            "recall uses it as it was (`tether index` catches up)"
        )
        return
    summary = repo.last_summary
    if summary is not None:
        for line in summary.notices:
            notice(line)
