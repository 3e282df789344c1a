"""The one core every surface calls: the stores of a folder, the recall engine over them, and
the record of what was shown.

The CLI, the agent hooks, the language server and the MCP server each open the project store
of a folder's repository and the user's global store, build a :class:`~recall.ranking.engine.
Recaller` over them (repository signals, embedder, cache folder) and count what they showed.
They do it here, so a change to how recall is assembled is made once.

Heavy modules (the ranking engine, numpy) are imported inside the functions that need them:
the hooks import this module and must start lean (``tests/test_lean_imports.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from recall.errors import BadInput, NotFound
from recall.kept_engine import close_store, open_store
from recall.locations import (
    GLOBAL,
    PROJECT,
    HomeUnusable,
    InGitFolder,
    global_location,
    nothing_to_serve,
    project_location,
    user_wide_left_out,
    user_wide_unavailable,
)
from recall.store import MemoryStore

if TYPE_CHECKING:
    from recall.kept_engine import KeptEngines
    from recall.ranking.engine import Hit, Recaller, RepoSignals

Notice = Callable[[str], None]

RECALL_LIMIT = 10
"""Memories one recall returns unless asked for another number: a screen of receipts, and
more than the three an injection or a diagnostic pass keeps after its own gate."""


class FolderStores:
    """The project store of ``cwd``'s repository and the user's global store, each opened on
    first use and kept until :meth:`close`."""

    def __init__(self, cwd: Path, *, notice: Notice) -> None:
        self.cwd = cwd
        self.notice = notice
        self._opened: dict[str, MemoryStore] = {}
        self.in_git_folder = False
        """Whether ``cwd`` turned out to be in git's own folder, which was said."""
        self.home_left_out: str | None = None
        """What was said when a read left the user-wide store out, ``TETHER_HOME`` being
        unusable here (:meth:`global_if_usable`); said once, kept for a surface's own notes."""
        self.settings_left_out: str | None = None
        """What was said when the user's own settings were not read for that reason, and the
        user-wide store's note had not been (:meth:`say_settings_left_out`)."""

    def project(self, *, create: bool = False) -> MemoryStore:
        """The project store; :class:`NotFound` outside any repository (``create`` makes the
        store at ``cwd`` when it is a repository without one)."""
        if PROJECT not in self._opened:
            location = project_location(self.cwd, create_at_cwd=create)
            self._opened[PROJECT] = open_store(location, self.notice)
        return self._opened[PROJECT]

    def global_store(self) -> MemoryStore:
        """The user's global store; :class:`HomeUnusable` (exit 2) when ``TETHER_HOME`` cannot
        be used here, naming it and what to do (:func:`recall.locations.global_location`)."""
        if GLOBAL not in self._opened:
            try:
                location = global_location(self.cwd)
            except HomeUnusable as error:
                raise HomeUnusable(user_wide_unavailable(str(error))) from None
            self._opened[GLOBAL] = open_store(location, self.notice)
        return self._opened[GLOBAL]

    def global_if_usable(self) -> MemoryStore | None:
        """The user's global store for a read beside the project's; None when ``TETHER_HOME``
        cannot be used here, said once (the project's memories are read without it)."""
        if GLOBAL in self._opened:  # opened: its home was usable, and stays so in a process
            return self._opened[GLOBAL]
        try:
            location = global_location(self.cwd)
        except HomeUnusable as error:
            if self.home_left_out is None:
                self.home_left_out = user_wide_left_out(str(error))
                self.notice(self.home_left_out)
            return None
        self._opened[GLOBAL] = open_store(location, self.notice)
        return self._opened[GLOBAL]

    def say_settings_left_out(self, reason: str) -> None:
        """Say once that the user's own settings were not read, ``TETHER_HOME`` being unusable
        here (``reason``: the :class:`HomeUnusable` message); nothing when the user-wide store's
        note, which names the same variable and what to do, was said."""
        if self.home_left_out is None and self.settings_left_out is None:
            from recall.settings_home import settings_left_out

            self.settings_left_out = settings_left_out(reason)
            self.notice(self.settings_left_out)

    def unusable_home(self) -> str | None:
        """Why ``TETHER_HOME`` cannot be the user-wide store's folder here (the variable, its
        value, why and what to do: :func:`recall.locations.global_location`); None when it can.
        """
        try:
            global_location(self.cwd)
        except HomeUnusable as error:
            return str(error)
        return None

    def store(self, scope: str) -> MemoryStore:
        """The store of ``scope`` (``project`` or ``global``)."""
        if scope == GLOBAL:
            return self.global_store()
        if scope == PROJECT:
            return self.project()
        raise BadInput(f"unknown scope {scope!r}; use project or global")

    def stores(self, scope: str = "all") -> list[MemoryStore]:
        """The stores a read covers: one scope, or ``all`` (project first when there is one;
        without the global store when ``TETHER_HOME`` cannot be used, said once). Outside any
        repository the global store alone, and :class:`HomeUnusable` (exit 2) when it cannot
        be used: there is nothing to read."""
        if scope != "all":
            return [self.store(scope)]
        project = self.project_if_any()
        if project is not None:
            other = self.global_if_usable()
            return [project] if other is None else [project, other]
        reason = self.unusable_home()
        if reason is not None:
            raise HomeUnusable(nothing_to_serve(self.cwd, reason))
        return [self.global_store()]

    def project_if_any(self) -> MemoryStore | None:
        """The project store, or None outside any repository; in git's own folder (a bare
        repository) that is said, with where to run instead, as :attr:`in_git_folder` keeps."""
        try:
            return self.project()
        except InGitFolder as error:
            self.in_git_folder = True
            self.notice(f"{error}; only your user-wide memories are read here")
            return None
        except NotFound:
            return None

    def opened(self) -> list[MemoryStore]:
        """Every store opened so far."""
        return list(self._opened.values())

    def close(self) -> None:
        """Close every store opened so far (or keep it for the next command, in a process
        that keeps them: :mod:`recall.kept_engine`)."""
        for store in self._opened.values():
            close_store(store)


def cache_dir(project: MemoryStore | None) -> Path | None:
    """Where the engine keeps what it derives for the project (None without a project store
    on disk: nothing is cached in a repository that was never set up)."""
    if project is None or not project.exists:
        return None
    return project.location.base / "cache"


def build_recaller(
    stores: Sequence[MemoryStore],
    project: MemoryStore | None,
    *,
    notice: Notice,
    signals: RepoSignals | None = None,
    short_lived: bool = False,
    genome_notice: Notice | None = None,
    kept: KeptEngines | None = None,
) -> Recaller:
    """The recall engine over ``stores``: the repository signals of ``project`` (its genome,
    refreshed if stale, unless ``signals`` are given), the configured embedder, the cache.
    One of ``kept`` (a server's own) or of this process's (:mod:`recall.kept_engine`) when
    engines are kept, made current, unless an embedder provider is configured.

    ``short_lived`` is for a process that answers one query and exits (a refresh of its genome
    leaves the symbol index to ``tether index`` and the language server); ``genome_notice`` takes
    the genome's notices (a shallow clone, say) when they belong elsewhere than ``notice``.
    """
    from recall.kept_engine import keeping
    from recall.ranking.embedders import embedder_for
    from recall.ranking.engine import Recaller
    from recall.repo_signals import open_repo_signals

    root = project.repo_root if project is not None else None
    embedder, semantic = embedder_for(root, notice)
    kept = kept if kept is not None else keeping()
    if signals is None and embedder is None and kept is not None:

        def long_lived() -> Recaller:
            repo = None
            if project is not None:
                repo = open_repo_signals(
                    project, notice=genome_notice or notice, symbols=not short_lived
                )
            return Recaller(
                stores, repo, cache_dir=cache_dir(project), semantic=semantic, notice=notice
            )

        # a long-lived process keeps its engine between recalls
        return kept.recaller(
            stores,
            project,
            semantic,
            notice=notice,
            genome_notice=genome_notice or notice,
            build=long_lived,
        )
    if signals is None:
        # The engine opens the stores itself and nothing reads them before its first recall,
        # which asks each for its folder's verdict (a one-shot command, a batch's first line).
        for store in stores:
            store.defer_first_check()
    if signals is None and project is not None:
        signals = open_repo_signals(
            project, notice=genome_notice or notice, symbols=not short_lived
        )
    return Recaller(
        stores,
        signals,
        embedder=embedder,
        cache_dir=cache_dir(project),
        short_lived=short_lived,
        semantic=semantic,
        notice=notice,
    )


def record_shown(
    stores: Sequence[MemoryStore],
    hits: Sequence[Hit],
    *,
    session: str | None = None,
    origin: str = "cli",
) -> None:
    """Count one surfacing of each shown hit in its own store and, with a ``session``, one
    turn of it in the project store. Stores not created yet count nothing."""
    from recall.policy.sessions import count_turn
    from recall.policy.usage import record_surfacings

    for store in stores:
        if not store.exists:
            continue
        if session is not None and store.scope == PROJECT:
            count_turn(store.conn, session, origin=origin)
        record_surfacings(store.conn, [h.memory.id for h in hits if h.scope == store.scope])
