"""Confirming a memory: a person says it still holds. One path for ``tether confirm`` and the
cleanup's confirm decision (``--confirm ID`` and its ``c`` key), so both record the same:
the time (drift counts restart from it) and the body of each anchored symbol as the working
tree holds it now (a changed symbol stops being "changed", and ``tether check`` passes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recall.anchors.states import confirmed_anchors
from recall.anchors.symbols import anchors_to_field
from recall.clock import now_iso
from recall.lifecycle.disuse import vouched_for
from recall.lifecycle.references import CONFIRMED_KEY
from recall.model import Memory
from recall.store import MemoryStore


@dataclass(frozen=True)
class Confirmed:
    """What confirming a memory recorded."""

    memory: Memory  # as it is now
    stamp: str  # the time recorded as its ``confirmed``


def confirm(store: MemoryStore, memory: Memory, genome: Any | None) -> Confirmed:
    """Record that ``memory`` of ``store`` was checked and holds: the time, and its anchors'
    bodies as found through ``genome`` (the project's; None for a global store) in the working
    tree. The person vouched for it, so it is counted as acted on and back from disuse."""
    stamp = now_iso()
    changes: dict[str, Any] = {CONFIRMED_KEY: stamp}
    if memory.anchors:  # their code as it is now is what the memory holds true
        anchors = confirmed_anchors(memory, genome)
        if anchors != memory.anchors or any(
            a.body != b.body for a, b in zip(anchors, memory.anchors, strict=True)
        ):
            changes["anchors"] = anchors_to_field(anchors)
    updated = store.update_fields(memory.id, changes)
    store.write_per_user(lambda conn: vouched_for(conn, memory.id))
    return Confirmed(updated, stamp)
