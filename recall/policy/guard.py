"""Guarded memories: a gotcha, decision or rejected approach whose files an edit should not
change before a person has looked at it.

The guard lives in the memory file (``guard: true``) and in the index's ``guard`` column, so an
edit hook finds the guarded memories of a file with one indexed query. What a surface does with
them is its own: the pre-edit hook asks the person (never blocks the agent on its own), the
language server marks them with their own diagnostic, ``tether check`` fails a diff that
changes their files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from recall.errors import NothingToDo
from recall.frontmatter import REMOVE
from recall.records import check_guard

if TYPE_CHECKING:
    import sqlite3

    from recall.model import Memory
    from recall.store import MemoryStore

ASK_WORDING: Final = {
    "gotcha": "a guarded gotcha",
    "decision": "a guarded decision",
    "rejected": "an approach tried before and rejected (guarded)",
}
"""How the question to the person names each guardable kind."""


def with_guard(draft: Memory, guard: bool) -> Memory:
    """``draft`` guarded when asked (checked: only the guardable kinds take a guard)."""
    if not check_guard(draft.category, guard):
        return draft
    return draft.with_changes(guard=True)


def set_guard(store: MemoryStore, ref: str, guard: bool) -> Memory:
    """Guard or unguard a memory; NothingToDo when it already is, BadInput for a kind that
    takes no guard."""
    memory = store.get(ref)
    if memory.guard == guard:
        state = "guarded" if guard else "not guarded"
        raise NothingToDo(f"memory {memory.id} is already {state}")
    check_guard(memory.category, guard)
    # Unguarding drops the key rather than writing ``guard: false``: the file says only what is so.
    return store.update_fields(memory.id, {"guard": True if guard else REMOVE})


def guarded_rows(conn: sqlite3.Connection, paths: list[str]) -> dict[str, list[str]]:
    """Active guarded memory ids per path among ``paths`` (paths with none left out), one query."""
    if not paths:
        return {}
    marks = ",".join("?" * len(paths))
    found: dict[str, list[str]] = {}
    for path, memory_id in conn.execute(
        "SELECT f.path, m.id FROM memory_files f JOIN memories m ON m.rowid = f.memory_rowid "
        f"WHERE f.path IN ({marks}) AND m.guard = 1 AND m.status = 'active' "
        "ORDER BY f.path, m.pinned DESC, m.id",
        paths,
    ):
        found.setdefault(path, []).append(memory_id)
    return found


def guarded_for(store: MemoryStore, path: str) -> list[Memory]:
    """The active guarded memories that name ``path``, pinned first."""
    ids = guarded_rows(store.conn, [path]).get(path, [])
    return [store.get(memory_id) for memory_id in ids]


def ask_reason(memories: list[Memory], path: str, summary_of: dict[str, str]) -> str:
    """The question shown to the person before an edit of ``path`` goes ahead.

    ``summary_of`` holds each memory's summary already made safe for the agent's context."""
    lines = [f"Tether: {path} is guarded. Review before allowing this edit:"]
    for memory in memories:
        lines.append(
            f'· {ASK_WORDING[memory.category]} "{summary_of[memory.id]}" [{memory.id}]'
            f" — `tether show {memory.id}`"
        )
    lines.append("Allow it if the edit keeps to them; `tether unguard ID` lifts a guard.")
    return "\n".join(lines)
