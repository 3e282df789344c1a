"""What ``tether check`` reports: one finding per memory and place, and what fixes a failure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recall.model import Memory

REVIEW = "review"
FAIL = "fail"
GUARDED = "under a guarded memory"


@dataclass(frozen=True)
class Finding:
    """One memory the change affects, where, and why."""

    level: str
    memory: Memory
    path: str
    line: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "level": self.level,
            "id": self.memory.id,
            "category": self.memory.category,
            "summary": self.memory.summary,
            "pinned": self.memory.pinned,
            "path": self.path,
            "line": self.line,
            "reason": self.reason,
        }


def guard_fix(
    memory: Memory,
    moved: bool = False,
    renamed: tuple[str, str] | None = None,
    edited: bool = True,
) -> str:
    """What to do about a guard failure: confirm the memory (a moved symbol may be repointed
    instead). For a file the memory names by a name git's history shows renamed (``renamed``:
    that name and the file's name now), confirming leaves the memory on the old name: it is
    repointed, and confirmed too when the change ``edited`` the file's code."""
    if renamed is not None:
        old, new = renamed
        step = f"`tether repoint {memory.id} --apply` (git's history shows {old} renamed to {new})"
        if edited:
            step = f"after checking it still holds, {step} and `tether confirm {memory.id}`"
        return f", {GUARDED}; {step}, and commit the memory with the change"
    also = f" (or `tether repoint {memory.id} --apply` after the move)" if moved else ""
    return (
        f", {GUARDED}; after checking it still holds, `tether confirm {memory.id}`{also} and "
        "commit the memory with the change"
    )


def pinned_and_gone(memory_id: str, names: str) -> str:
    """What ends the failure of a pinned memory whose file or symbol the change deletes: no
    rename leads anywhere for ``repoint`` to follow, so it is superseded by one naming what
    holds the knowledge now (``names``: the option that names it), or unpinned."""
    return (
        f"; the memory is pinned: supersede it with one that names where this lives now "
        f"(`tether supersede {memory_id} SUMMARY {names}`), or unpin it (`tether unpin "
        f"{memory_id}`) if it no longer holds"
    )
