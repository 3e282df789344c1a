"""Shaping engine results into what a tool returns: plain JSON an agent reads field by field.

A recall hit and a list entry carry the one-line summary only (details are fetched with
``memory_get``, which counts as acting on the memory); a card carries everything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall.lifecycle.disuse import seen_state
from recall.model import Memory
from recall.store import not_on_it_note

if TYPE_CHECKING:
    from recall.ranking.engine import Hit
    from recall.store import WriteResult


def line(memory: Memory, scope: str) -> dict[str, Any]:
    """A memory in a list: id, category, summary, files and state, no details."""
    return {
        "id": memory.id,
        "category": memory.category,
        "summary": memory.summary,
        "files": list(memory.files),
        "pinned": memory.pinned,
        "status": memory.status,
        "scope": scope,
    }


def listed(memory: Memory, scope: str, disused: dict[str, str | None]) -> dict[str, Any]:
    """A memory in a list as this user sees it: one in ``disused`` (id -> when this user's
    disuse archived it) is archived, with the file's own status as ``file_status``."""
    return {**line(memory, scope), **seen_state(memory, disused)}


def card(memory: Memory, scope: str) -> dict[str, Any]:
    """A memory whole: the list fields plus details, anchor, links and provenance."""
    return {
        **line(memory, scope),
        "details": memory.details,
        "anchor": memory.anchor,
        "anchors": [anchor.text for anchor in memory.anchors],
        "supersedes": memory.supersedes,
        "superseded_by": memory.superseded_by,
        "created": memory.created,
        "author": memory.author,
        "source": memory.source,
    }


def hit(found: Hit) -> dict[str, Any]:
    """A recalled memory: its line, the receipt saying why it surfaced, and its score."""
    return {
        **line(found.memory, found.scope),
        "receipt": found.receipt,
        "score": round(found.score, 4),
    }


def written(result: WriteResult) -> dict[str, Any]:
    """The outcome of a write; ``duplicate_of`` names the memory already holding the text."""
    data: dict[str, Any] = {
        "id": result.id,
        "scope": result.scope,
        "path": str(result.path),
        "written": result.duplicate_of is None,
    }
    if result.duplicate_of is not None:
        data["duplicate_of"] = result.duplicate_of
        data["duplicate_status"] = result.duplicate_status
        if result.files_not_on_it:
            data["files_not_on_it"] = list(result.files_not_on_it)
            data["note"] = not_on_it_note(result.id, result.files_not_on_it, result.path)
    return data
