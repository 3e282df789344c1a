"""The names a memory may give a file, dated from the indexed renames: its earlier names and
its own, each with the moments between which a memory naming it is about the file.

Mixed into :class:`~recall.genome.genome.Genome`, which provides the index connection, the
rename chains (``_follow``), the state checks and what it kept of commit times and returns.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from recall.file_names import (
    EarlierName,
    dated_names,
    held_since,
    read_reuse,
    read_snapshot,
    unread,
)


class DatedNames:
    """A file's names dated for recall (:mod:`recall.file_names`), no git run."""

    conn: sqlite3.Connection
    _rename_times: dict[int, int]
    _came_back: dict[tuple[str, int], int | None]

    if TYPE_CHECKING:  # provided by the genome this is mixed into

        def _follow(self, walk: Callable[[Any], Any]) -> Any: ...

        def _adopt_state(self) -> bool: ...

        def exists(self, path: str) -> bool: ...

        def submodule_steps(self, path: str) -> list[tuple[str, int]]: ...

        def submodule_left(self, path: str) -> tuple[str, int] | None: ...

    def earlier_names(self, path: str) -> list[EarlierName]:
        """The earlier names of the file now at ``path`` a memory may name it by, each with
        the moment a memory naming it must be written before
        (:func:`recall.file_names.dated_names`): no git run, and for the names not read
        before in this state one statement for the commits that brought them back and one
        for the times of those commits and of their renames. A file in a submodule has the
        names its folder had (git's history renames the submodule, never its files)."""
        steps = self._follow(lambda renames: renames.backward_steps(path))
        steps = steps or self.submodule_steps(path)
        times, back = self._rename_times, self._came_back
        if unread(steps, times, back):
            with read_snapshot(self.conn):
                if self._adopt_state():  # refreshed elsewhere: the steps are renumbered
                    return self.earlier_names(path)
                read_reuse(self.conn, steps, times, back)
        return dated_names(steps, times, self.exists, back)

    def own_name(self, path: str) -> EarlierName:
        """``path`` as the file there now has it (:func:`recall.file_names.held_since`): a
        memory naming it written before another file was renamed away from the name is about
        that file. No git run; read as :meth:`earlier_names` reads the names it dates."""
        step = self._follow(lambda renames: renames.left_step(path))
        step = step or self.submodule_left(path)
        if step is None:
            return EarlierName(path, math.inf)
        times, back = self._rename_times, self._came_back
        if unread([step], times, back):
            with read_snapshot(self.conn):
                if self._adopt_state():  # refreshed elsewhere: the steps are renumbered
                    return self.own_name(path)
                read_reuse(self.conn, [step], times, back)
        return held_since(step, times, back)
