"""Confirming an unchanged memory folder on another core while a new engine first ranks.

A process that builds its engine (``tether inject``, ``tether recall`` and its ``--batch``, the
prompt hook) confirms its folder is as indexed by one ``lstat`` per memory file: at 30,000
memories, about a third of a cold ``tether inject``. That check only says whether the index may
be trusted; the ranking does not need its answer until it is done. So such an engine's store
hands the stats to a forked child (a :class:`recall.forked.Spread` of one) and reads the index
as it stands; the engine asks for the verdict before it returns anything
(:meth:`recall.store.opening.IndexOpening.settle`), and when a file did change the store opens
its index again (checked and synced there, as any opening is) and the recall is ranked again.

Only the check of a settled folder whose listing the index keeps is deferred: a folder whose
own times moved (a file added, removed or renamed) is listed and compared in the process, as
before, and so is a small one, which the stats cost less than a fork.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from recall.forked import ChildFailed, Spread
from recall.memfiles import MemoryFolder

DEFER_MIN_FILES: Final = 4_096
"""Memory files from which the check goes to a child. Forking the process and the page copies
its writes then cause cost about 5 ms: at 6,300 files (10 ms of stats) a cold ``tether
inject`` saved 4.5 ms, at 30,000 it saved 32 ms; below about 3,000 the fork costs more."""


_ALLOWED = [True]


def keep_checks_here() -> None:
    """Never defer a check in this process from now on: a long-lived one (the warm engine)
    would fork all it holds (its sockets, its lock) for a check its folder watches mostly
    spare, at a cost measured for a one-shot process only."""
    _ALLOWED[0] = False


@dataclass
class DeferredCheck:
    """Stats of a settled folder's listed files, made in a child or shared among several;
    their answers ``combine`` into one compared with the folder's fingerprint as last indexed
    (its count, modification times and sizes summed). Also the look a one-shot command began
    at its start (:mod:`recall.index.early_look`), whose answer holds the folder's stamp and
    its name checksums too."""

    parts: Spread[Any]
    expected: tuple[Any, ...]
    combine: Callable[[list[Any]], Any]

    @classmethod
    def start(
        cls, folder: MemoryFolder, names: list[bytes], expected: tuple[int, int, int]
    ) -> DeferredCheck | None:
        """The check of ``names`` begun in a child; None when it is better made here: a small
        folder, a process with other threads (a fork copies only the calling one) or one that
        keeps its checks (:func:`keep_checks_here`), or no fork to be had."""
        if not _ALLOWED[0] or len(names) < DEFER_MIN_FILES or threading.active_count() > 1:
            return None
        # one child: the ranking goes on beside it, and a second would take the ranking's core
        parts = Spread.start(folder.stat_listed, [names])
        return None if parts is None else cls(parts, expected, added)

    def as_indexed(self) -> bool:
        """Whether every listed file was there, a plain file, with the times and sizes the
        index has; False too when the child could not answer (it is then checked again)."""
        try:
            totals = self.combine(self.parts.results())
        except (ChildFailed, OSError):
            return False
        return totals == self.expected

    def stop(self) -> None:
        """Give up on the verdict (the store closes before asking): the children are reaped."""
        self.parts.stop()


def added(parts: list[tuple[int, ...] | None]) -> tuple[int, ...] | None:
    """The totals of the shares of a folder's files, added up; None when a share's were
    not to be had (a file gone, or no longer a plain file)."""
    if any(part is None for part in parts):
        return None
    return tuple(sum(column) for column in zip(*parts, strict=True))
