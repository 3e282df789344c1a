"""The stores and the recall engine a long-lived process keeps between the commands it runs.

The warm engine (:mod:`recall.warm`) runs each agent command as a fresh process would, but a
fresh process starts every recall cold: the index opened and checked, the genome read, and the
engine's word counts, vectors and commit times loaded again (at 30,000 memories about 50 ms
of each warm ``tether inject``). With :func:`keep_between_commands` on, a command gets back
the stores and the engine the previous one left, made current first as an opening would:

- a store's index is checked against its memory folder at its next use
  (:meth:`recall.store.opening.IndexOpening.serve_again`), so a file another process wrote,
  removed or edited in place is indexed before anything is read;
- the engine's genome is refreshed when HEAD, git's index or the settings moved, and forgets
  what it kept from before (:meth:`recall.genome.Genome.is_stale`); its other caches follow
  each index's state, as the language server's long-lived engine does;
- a store left read-only, busy or mid-write is closed, and opened afresh next time;
- an engine with a configured embedder (a provider's, whose setting a command may change) is
  built anew for each command, as before.

Off (every one-shot process), this module only hands out new stores. A server that keeps its
stores open itself and catches them up with the disk (the MCP server) keeps its engines in a
:class:`KeptEngines` of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from recall.locations import Location
from recall.store import MemoryStore

if TYPE_CHECKING:
    from recall.ranking.engine import Recaller

Notice = Callable[[str], None]

MAX_ENGINES: Final = 4
"""Engines kept, one per set of stores asked for (``--scope all``, ``project``, ``global``,
and the prompt hook's): a speed setting, not a judgement (any number ranks the same)."""


@dataclass
class _Kept:
    """An engine, the stores it ranks and whether the project store existed when it was built
    (a store created since needs the genome an existing one has)."""

    recaller: Recaller
    stores: tuple[MemoryStore, ...]
    project_existed: bool


class KeptEngines:
    """Recall engines kept by the stores they rank, for one long-lived owner: this process's
    commands (:func:`keep_between_commands`), or a server that keeps its stores open itself
    (the MCP server's workspace)."""

    def __init__(self) -> None:
        """Start with no engine."""
        self._engines: dict[tuple[int, ...], _Kept] = {}
        self.reused = 0
        """Recalls served by a kept engine (the warm engine's status shows it)."""

    def recaller(
        self,
        stores: Sequence[MemoryStore],
        project: MemoryStore | None,
        semantic: bool,
        *,
        notice: Notice,
        genome_notice: Notice,
        build: Callable[[], Recaller],
    ) -> Recaller:
        """The engine over ``stores`` kept from an earlier recall, made current; else a new
        one from ``build`` (a long-lived engine with the built-in embedder), kept for the next.
        ``semantic``: whether the semantic channel ranks (an engine built otherwise is not
        reused)."""
        key = tuple(id(store) for store in stores)
        kept = self._engines.get(key)
        existed = project is not None and project.exists
        if (
            kept is not None
            and kept.project_existed == existed
            and kept.recaller.semantic == semantic
            and all(a is b for a, b in zip(kept.stores, stores, strict=True))
            # an index replaced since (a reindex, a recovery): its genome is built on the new one
            and (
                project is None
                or not existed
                or getattr(kept.recaller.repo, "conn", None) is project.conn
            )
        ):
            from recall.repo_signals import bring_up_to_date

            bring_up_to_date(kept.recaller.repo, notice=genome_notice)
            # a listener of this recall's own: what the engine tells a listener once (memories
            # left out of the semantic channel) each command hears, as a fresh process tells it
            kept.recaller.notice = lambda message: notice(message)
            self.reused += 1
            return kept.recaller
        recaller = build()
        if len(self._engines) >= MAX_ENGINES:
            self._engines.pop(next(iter(self._engines)))
        self._engines[key] = _Kept(recaller, tuple(stores), existed)
        return recaller

    def forget(self, store: MemoryStore | None = None) -> None:
        """Let go of every engine that ranks ``store`` (every engine without one)."""
        for key, kept in list(self._engines.items()):
            if store is None or any(s is store for s in kept.stores):
                del self._engines[key]


class _Keeping:
    """What this process keeps: open stores by location, engines by the stores they rank."""

    def __init__(self) -> None:
        self.on = False
        self.stores: dict[Location, MemoryStore] = {}
        self.engines = KeptEngines()


_KEEPING = _Keeping()


def keep_between_commands() -> None:
    """Keep stores and engines open between the commands this process runs from now on."""
    _KEEPING.on = True


def stop_keeping() -> None:
    """Close every kept store, forget every kept engine and keep nothing from now on."""
    _KEEPING.on = False
    _KEEPING.engines = KeptEngines()
    for store in list(_KEEPING.stores.values()):
        store.close()
    _KEEPING.stores.clear()


def reused_engines() -> int:
    """How many commands a kept engine has served."""
    return _KEEPING.engines.reused


def open_store(location: Location, notice: Notice) -> MemoryStore:
    """The store at ``location`` for one command: the one kept from the previous command
    (checked against its folder at its next use), else a new one."""
    store = _KEEPING.stores.pop(location, None) if _KEEPING.on else None
    if store is None:
        return MemoryStore(location, notice=notice)
    store.serve_again(notice)
    return store


def close_store(store: MemoryStore) -> None:
    """Done with ``store`` for this command: kept for the next when it may be, else closed
    (with any engine that ranks it)."""
    if _KEEPING.on and store.reusable():
        previous = _KEEPING.stores.get(store.location)
        if previous is not None and previous is not store:
            _drop(previous)
        _KEEPING.stores[store.location] = store
        return
    _drop(store)


def _drop(store: MemoryStore) -> None:
    if _KEEPING.stores.get(store.location) is store:
        del _KEEPING.stores[store.location]
    _KEEPING.engines.forget(store)
    store.close()


def keeping() -> KeptEngines | None:
    """The engines this process keeps between commands, when it keeps them."""
    return _KEEPING.engines if _KEEPING.on else None
