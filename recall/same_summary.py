"""A new memory whose summary an active or pending one already has, with another category or
other details: two cards with one summary read as one, so every way of writing a memory (the
CLI, the MCP server, the language server, the browser) refuses it and points at a supersede
instead, a supersede's replacement too (but for the memory it replaces, which may keep its own
summary: correcting a memory's category or details is what a supersede is for). The same
summary, category and details is an exact duplicate, which the store answers."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection
from dataclasses import dataclass

from recall.errors import NothingToDo
from recall.model import Memory, summary_key
from recall.model import _normalize_for_hash as same_text


@dataclass(frozen=True)
class SameSummary:
    """The memory already holding a new one's summary, and how the two differ."""

    memory_id: str
    differs: tuple[str, ...]

    def reason(self) -> str:
        """``<id> already has this summary, but <how they differ>``."""
        return f"{self.memory_id} already has this summary, but {' and '.join(self.differs)}"


def same_summary(
    conn: sqlite3.Connection, draft: Memory, other_than: str | Collection[str] | None = None
) -> SameSummary | None:
    """The active or pending memory of the index at ``conn`` (``other_than`` left out: the
    memory ``draft`` supersedes, or several ids) holding ``draft``'s summary with another
    category or other details, or None (none holds it, or one holds it exactly)."""
    skip = {other_than} if isinstance(other_than, str) else set(other_than or ())
    # looked up by the summary's key alone (``+status`` keeps the status index out): the few
    # memories holding it, however many the store holds
    found = conn.execute(
        "SELECT id, category, details FROM memories "
        "WHERE summary_key = ? AND +status IN ('active', 'pending') ORDER BY created",
        (summary_key(draft.summary),),
    )
    for memory_id, category, details in found:
        if memory_id in skip:
            continue
        differs = []
        if category != draft.category:
            differs.append(f"its category is {category}, not {draft.category}")
        if same_text(details) != same_text(draft.details):
            if details and draft.details:
                differs.append("it has other details")
            else:
                differs.append("it has details" if details else "it has no details")
        return SameSummary(memory_id, tuple(differs)) if differs else None
    return None


def refuse_same_summary(
    conn: sqlite3.Connection,
    draft: Memory,
    replace: Callable[[str], str],
    *,
    other_than: str | Collection[str] | None = None,
) -> None:
    """Raise :class:`NothingToDo` when another memory holds ``draft``'s summary differently,
    saying how to change that one instead: ``replace(its id)`` names the caller's own way (a
    command, a tool) to supersede it. For a supersede, ``other_than`` is the memory replaced."""
    found = same_summary(conn, draft, other_than)
    if found is not None:
        raise NothingToDo(
            f"{found.reason()}; nothing written. To change it, {replace(found.memory_id)} "
            "replaces it (the old one stays in the record); to keep both, give this one a "
            "summary of its own"
        )


def supersede_command(memory_id: str) -> str:
    """How the CLI, and the browser that points at it, name the command that changes the
    memory ``memory_id`` in a refusal of its summary."""
    return f"`tether supersede {memory_id} SUMMARY -c CATEGORY [--details TEXT]`"
