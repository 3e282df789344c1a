"""Rename chains: where a file that left a name went, and which names a file had before."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from operator import itemgetter


class RenameIndex:
    """Rename events (commit number, old name, new name) indexed both ways, in commit order.

    A name can be left, reused and left again, so each step of a chain only follows events
    later (forward) or earlier (backward) than the step before it.
    """

    def __init__(self, rows: list[tuple[int, str, str]]) -> None:
        """Index ``rows`` of (commit number, old name, new name), sorted by commit number.
        Each direction is indexed when it is first asked: a drift count follows names forward
        only, and a short-lived process would otherwise index both."""
        self._rows = rows
        self._by_old: dict[str, list[tuple[int, str]]] | None = None
        self._by_new: dict[str, list[tuple[int, str]]] | None = None

    @property
    def by_old(self) -> dict[str, list[tuple[int, str]]]:
        """The events by the name left: (commit number, new name), in commit order."""
        if self._by_old is None:
            self._by_old = _grouped((old, (seq, new)) for seq, old, new in self._rows)
        return self._by_old

    @property
    def by_new(self) -> dict[str, list[tuple[int, str]]]:
        """The events by the name taken: (commit number, old name), in commit order."""
        if self._by_new is None:
            self._by_new = _grouped((new, (seq, old)) for seq, old, new in self._rows)
        return self._by_new

    def forward(self, path: str) -> str | None:
        """The current name of the file most recently renamed away from ``path``; None when
        ``path`` was never renamed away or the chain comes back to it."""
        events = self.by_old.get(path)
        if not events:
            return None
        seq, current = events[-1]
        while True:
            later = self.by_old.get(current, [])
            index = bisect.bisect_right(later, seq, key=itemgetter(0))
            if index >= len(later):
                break
            seq, current = later[index]
        return None if current == path else current

    def backward(self, path: str) -> list[str]:
        """The earlier names of the file that was last renamed to ``path``, newest first."""
        events = self.by_new.get(path)
        if not events:
            return []
        seq, current = events[-1]
        found = [current]
        while True:
            earlier = self.by_new.get(current, [])
            index = bisect.bisect_left(earlier, seq, key=itemgetter(0)) - 1
            if index < 0:
                break
            seq, current = earlier[index]
            found.append(current)
        return [name for name in dict.fromkeys(found) if name != path]


def _grouped(pairs: Iterable[tuple[str, tuple[int, str]]]) -> dict[str, list[tuple[int, str]]]:
    """The values of ``pairs`` listed by key, in the order met."""
    found: dict[str, list[tuple[int, str]]] = {}
    for key, value in pairs:
        found.setdefault(key, []).append(value)
    return found
