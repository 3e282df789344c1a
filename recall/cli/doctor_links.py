"""What ``tether doctor`` reports of the supersede links of one store: links to a memory no
store holds (from a superseded memory, or an active one recall still gives), links across
stores, an active memory a link hides, and links that do not go both ways."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from recall.lifecycle.links import (
    LINK_KEY,
    REPLACES_KEY,
    crossed,
    crossed_message,
    dangling,
    dangling_message,
    dangling_replaced,
    elsewhere_message,
    hidden_active,
    hidden_message,
    key_line,
    replaced_elsewhere,
    replaced_message,
    stray_link_message,
)
from recall.store import MemoryStore


def link_findings(store: MemoryStore, everywhere: Sequence[MemoryStore]) -> list[dict[str, Any]]:
    """Each broken supersede link of ``store`` (``everywhere``: the stores a link may name a
    memory of), as ``doctor --json`` gives it, its ``message`` placed at the key's line."""
    found: list[dict[str, Any]] = []

    def add(kind: str, memory_id: str, key: str, message: str, **link: str) -> None:
        path = store.path_of(memory_id)
        said = f"{path}:{key_line(path, key)}: {message}"
        entry = {"scope": store.scope, "kind": kind, "path": str(path), "id": link.pop("id")}
        found.append({**entry, **link, "message": said})

    for memory_id, target in dangling(store, everywhere):
        message = dangling_message(memory_id, target)
        add(
            "dangling-link", memory_id, "superseded_by", message, id=memory_id, superseded_by=target
        )
    for memory_id, target in dangling(store, everywhere, "active"):
        message = stray_link_message(memory_id, "active", target)
        add("dangling-link", memory_id, LINK_KEY, message, id=memory_id, superseded_by=target)
    for memory_id, target in dangling_replaced(store, everywhere):
        message = replaced_message(memory_id, target)
        add("dangling-link", memory_id, REPLACES_KEY, message, id=memory_id, supersedes=target)
    for memory_id, target, scope in replaced_elsewhere(store, everywhere):
        message = elsewhere_message(memory_id, target, scope)
        add("link-across-stores", memory_id, REPLACES_KEY, message, id=memory_id, supersedes=target)
    for memory_id, replacement in hidden_active(store):
        message = hidden_message(memory_id, replacement)
        add(
            "hidden-by-link",
            replacement,
            REPLACES_KEY,
            message,
            id=memory_id,
            superseded_by=replacement,
        )
    for memory_id, target, said in crossed(store):
        message = crossed_message(memory_id, target, said)
        add("one-way-link", memory_id, REPLACES_KEY, message, id=memory_id, supersedes=target)
    return found
