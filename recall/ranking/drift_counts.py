"""Drift counts kept between recalls: commits touching each (file, since) pair, for one state
of the genome.

A hub file's memories are shown again and again (an editor reopens the file, an agent asks
about it every turn), and each shown memory names several files: asking the genome for every
pair on every recall is a statement and a date parse per pair. The counts only change when
the genome does (a refresh after HEAD or git's index moved), so they are kept until then.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any, Final


class DriftCounts:
    """Commit counts per ``(path, since)`` pair, kept for one genome state (the engine keeps
    one for its repository)."""

    LIMIT: Final = 100_000
    """Pairs kept before the memory is dropped and refilled; a speed setting, not a judgement
    (any value marks the same hits)."""

    def __init__(self) -> None:
        """Start with nothing kept."""
        self._counts: dict[tuple[str, str], int] = {}
        self._state: str | None = None
        self._conn: sqlite3.Connection | None = None
        self.asked = 0
        """Pairs asked of the genome so far (tests check that kept counts are not asked again)."""

    def counts(
        self, repo: Any, pairs: Iterable[tuple[str, str]]
    ) -> Mapping[tuple[str, str], int] | None:
        """The commits touching each of ``pairs`` since its time, as
        ``commits_touching_many`` of ``repo`` answers them, the ones not kept asked at once;
        None when ``repo`` cannot answer so (a plain working tree). A pair the genome leaves
        out (a commit id for a time) is left out here too: :func:`drift` asks it alone."""
        many = getattr(repo, "commits_touching_many", None)
        if many is None:
            return None
        asked = list(dict.fromkeys(pairs))  # read twice below: an iterator would be spent
        self._follow(repo)
        missing = [pair for pair in asked if pair not in self._counts]
        if missing:
            if len(self._counts) + len(missing) > self.LIMIT:
                self._counts.clear()
                missing = asked  # the pairs this recall had kept went too
            self.asked += len(missing)
            found = many(missing)
            if not self._same_state(repo):
                # the genome took a newer state to answer (another process refreshed it): the
                # counts kept from before go, and the pairs they held are asked of this one
                self._follow(repo)
                self._counts.update(found)
                rest = [pair for pair in asked if pair not in self._counts]
                self.asked += len(rest)
                found = many(rest) if rest else {}
            self._counts.update(found)
        return self._counts

    def _same_state(self, repo: Any) -> bool:
        """Whether ``repo`` still has the state the kept counts are for (its drift counts
        take the index's current state, which a refresh by another process may have moved)."""
        token = getattr(repo, "state_token", None)
        return not callable(token) or token() == self._state

    def _follow(self, repo: Any) -> None:
        """Forget the counts when the genome's state or its index connection changed (a
        refresh, a rebuilt index); a repository that cannot say its state keeps nothing."""
        token = getattr(repo, "state_token", None)
        state = token() if callable(token) else None
        conn = getattr(repo, "conn", None)
        if state is None or state != self._state or conn is not self._conn:
            self._counts.clear()
        self._state, self._conn = state, conn
