"""Rename chains: where a file that left a name went, and which names a file had before."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from recall.file_names import backward_steps, follow_backward, follow_forward, left_step


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
        return follow_forward(path, lambda name: self.by_old.get(name, []))

    def backward(self, path: str) -> list[str]:
        """The earlier names of the file that was last renamed to ``path``, newest first."""
        return follow_backward(path, lambda name: self.by_new.get(name, []))

    def backward_steps(self, path: str) -> list[tuple[str, int]]:
        """:meth:`backward` with the commit number that took the file away from each name."""
        return backward_steps(path, lambda name: self.by_new.get(name, []))

    def left_step(self, path: str) -> tuple[str, int] | None:
        """The rename that last took another file away from ``path``, when that file has
        another name now (:func:`recall.file_names.left_step`)."""
        return left_step(path, lambda name: self.by_old.get(name, []))


class NotKept(LookupError):
    """A chain passed a name whose events were not read (see :meth:`RenameLookups.kept_only`)."""


def _not_kept(column: str, name: str) -> list[tuple[int, str]]:
    raise NotKept(column, name)


class RenameLookups:
    """The rename events of each name asked, read one name at a time (one search of the
    rename table's index by that name each) instead of the whole table (3,380 renames on
    networkmanager: about 8 ms to read and index, most of a first drift count's cost when a
    shown memory names a file by an old name). Asked by a genome until
    :data:`LOOKUPS_MAX` names were read in one of its states; past that the whole index is
    cheaper, and the genome reads it.

    Every name kept must come from one state of the table, or a chain would join two
    histories (a refresh renumbers commits and rewrites renames): the genome answers a chain
    from the names kept when it needs no other (:meth:`kept_only`), as it answers from a whole
    index read before; else it reads the chain in one read transaction, after making new
    look-ups if :attr:`state` is no longer the table's."""

    def __init__(self, read: Callable[[str, str], list[tuple[int, str]]], state: object) -> None:
        """``read(column, name)``: the events whose ``column`` ("old" or "new") is ``name``,
        as (commit number, the other name), in commit order; ``state``: what identifies the
        table's contents they are read from."""
        self._read = read
        self.state = state
        self._kept: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self.reads = 0
        """Names read so far (the genome switches to the whole index past a bound)."""

    def _events(self, column: str, name: str) -> list[tuple[int, str]]:
        found = self._kept.get((column, name))
        if found is None:
            found = self._kept[(column, name)] = self._read(column, name)
            self.reads += 1
        return found

    def kept_only(self) -> RenameLookups:
        """These look-ups, reading nothing: a chain passing a name not kept raises
        :class:`NotKept`."""
        view = RenameLookups(_not_kept, self.state)
        view._kept = self._kept
        return view

    def forward(self, path: str) -> str | None:
        """:meth:`RenameIndex.forward`, reading the names its chain passes through."""
        return follow_forward(path, lambda name: self._events("old", name))

    def backward(self, path: str) -> list[str]:
        """:meth:`RenameIndex.backward`, reading the names its chain passes through."""
        return follow_backward(path, lambda name: self._events("new", name))

    def backward_steps(self, path: str) -> list[tuple[str, int]]:
        """:meth:`RenameIndex.backward_steps`, reading the names its chain passes through."""
        return backward_steps(path, lambda name: self._events("new", name))

    def left_step(self, path: str) -> tuple[str, int] | None:
        """:meth:`RenameIndex.left_step`, reading the names its chain passes through."""
        return left_step(path, lambda name: self._events("old", name))


LOOKUPS_MAX = 64
"""Names a genome state reads one at a time before it reads the whole rename table: about
where the two cost the same (0.15 ms a name against 5.8 ms for the whole table, read and
indexed both ways, at 3,380 renames: even near 40 names), so a long-lived engine stops
paying per name soon after its first recalls, and a short-lived one never reads the whole
table for the few names it asks. Measured when each name was a scan of the table; since the
table is indexed by name, a name costs about 5 microseconds at 3,380 renames and the two meet
near a thousand names, so this bound now errs toward the whole read until it is measured again
on real histories."""


def _grouped(pairs: Iterable[tuple[str, tuple[int, str]]]) -> dict[str, list[tuple[int, str]]]:
    """The values of ``pairs`` listed by key, in the order met."""
    found: dict[str, list[tuple[int, str]]] = {}
    for key, value in pairs:
        found.setdefault(key, []).append(value)
    return found
