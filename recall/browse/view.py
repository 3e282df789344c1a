"""Which memories the browser shows: the filter state and the rule that applies it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, TypeVar

from recall.model import CATEGORIES, STATUSES, Memory

T = TypeVar("T")

# The values each one-key filter steps through, "no filter" first so one full turn resets it.
CATEGORY_CYCLE: Final[tuple[str | None, ...]] = (None, *CATEGORIES)
STATUS_CYCLE: Final[tuple[str, ...]] = ("all", *STATUSES)
SCOPE_CYCLE: Final[tuple[str, ...]] = ("all", "project", "global")


@dataclass(frozen=True)
class Entry:
    """One row of the browser: a memory, the scope of the store holding it, and whether this
    user's disuse archived it (the file still says active; see :mod:`recall.lifecycle.disuse`)."""

    memory: Memory
    scope: str
    disused: bool = False

    @property
    def status(self) -> str:
        """The status as this user sees it: archived when disuse archived it."""
        return "archived" if self.disused else self.memory.status

    @property
    def status_label(self) -> str:
        """The status column: says when the archive is this user's disuse."""
        return "archived by disuse" if self.disused else self.memory.status


@dataclass(frozen=True)
class View:
    """The browser's filters: category, status, scope, a text filter and a full-text search.

    Every status is shown by default: the browser is where archived, superseded, pending and
    deleted memories are found again.
    """

    category: str | None = None
    status: str = "all"
    scope: str = "all"
    text: str = ""
    search: str = ""

    def next_category(self) -> View:
        """The view with the next category filter (any, then each category in turn)."""
        return replace(self, category=step(CATEGORY_CYCLE, self.category))

    def next_status(self) -> View:
        """The view with the next status filter (all, then each status in turn)."""
        return replace(self, status=step(STATUS_CYCLE, self.status))

    def next_scope(self) -> View:
        """The view with the next scope filter (all, project, global)."""
        return replace(self, scope=step(SCOPE_CYCLE, self.scope))

    def describe(self) -> str:
        """The filters in force, on one line."""
        parts = [
            f"status: {self.status}",
            f"category: {self.category or 'any'}",
            f"scope: {self.scope}",
        ]
        if self.text:
            parts.append(f"filter: {self.text!r}")
        if self.search:
            parts.append(f"search: {self.search!r}")
        return " · ".join(parts)


def step(values: Sequence[T], current: T) -> T:
    """The value after ``current`` in ``values``, wrapping around (the first if unknown)."""
    try:
        return values[(list(values).index(current) + 1) % len(values)]
    except ValueError:
        return values[0]


def text_matches(memory: Memory, text: str) -> bool:
    """Whether every word of ``text`` occurs, in any case, in the memory's id, text or files."""
    words = text.casefold().split()
    if not words:
        return True
    haystack = "\n".join(
        (memory.id, memory.category, memory.summary, memory.details, *memory.files)
    ).casefold()
    return all(word in haystack for word in words)


def matches(entry: Entry, view: View) -> bool:
    """Whether an entry passes the view's category, status, scope and text filters."""
    memory = entry.memory
    if view.category and memory.category != view.category:
        return False
    if view.status != "all" and entry.status != view.status:
        return False
    if view.scope != "all" and entry.scope != view.scope:
        return False
    return text_matches(memory, view.text)
