"""Supersede links that point nowhere: a superseded memory whose replacement is in neither
store (an import of a record whose replacement was not exported with it, a hand edit, a
mistyped id). Such a memory is out of recall with nothing in its place; ``tether doctor``
names it and ``tether import`` says so on its line. Nothing is rewritten: the person decides
whether to bring it back or to give the right id."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from recall.errors import BadInput
from recall.store import MemoryStore

LINK_KEY = "superseded_by"
"""The front-matter key of a superseded memory naming the memory that replaces it."""


def in_a_store(memory_id: str, stores: Sequence[MemoryStore]) -> bool:
    """Whether a memory with exactly this id is in one of ``stores`` (any status: a deleted
    replacement is a decision, not a broken link). A store not created yet holds none."""
    for store in stores:
        if not store.exists:
            continue
        try:
            found = store.find(memory_id)
        except BadInput:  # not an id at all: in no store
            return False
        if found is not None and found.id == memory_id:
            return True
    return False


def key_line(path: Path, key: str = LINK_KEY) -> int:
    """The line of ``path``'s front matter that gives ``key`` (1 when it cannot be found)."""
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        return 1
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return number
    return 1


def dangling(store: MemoryStore, stores: Sequence[MemoryStore]) -> list[tuple[str, str]]:
    """The superseded memories of ``store`` whose replacement is in none of ``stores``: each
    as (its id, the id its link names)."""
    if not store.exists:
        return []
    return [
        (memory.id, memory.superseded_by)
        for memory in store.list(status="superseded")
        if memory.superseded_by and not in_a_store(memory.superseded_by, stores)
    ]


def dangling_message(memory_id: str, target: str, file: Path | None = None) -> str:
    """What to say of ``memory_id``, superseded by ``target``, which no store holds (``file``:
    its memory file, named when the message is not already placed on it)."""
    where = f" in {file}" if file is not None else ""
    return (
        f"{memory_id} is superseded by {target}, which is in neither store, so it is out of "
        f"recall with nothing in its place; `tether restore {memory_id}` brings it back, or "
        f"write the id of the memory that replaces it as its {LINK_KEY}{where}"
    )
