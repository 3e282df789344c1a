"""Confirming a memory: a person says it still holds. One path for ``tether confirm`` and the
cleanup's confirm decision (``--confirm ID`` and its ``c`` key), so both record the same:
the time (drift counts restart from it) and the body of each anchored symbol as the working
tree holds it now (a changed symbol stops being "changed", and ``tether check`` passes). An
anchored symbol the working tree no longer defines cannot be confirmed: it is named, with
what to do, and the rest is confirmed all the same. A deleted memory is not confirmed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recall.anchors.anchor_updates import confirmed_anchors
from recall.anchors.symbols import SymbolAnchor, anchors_to_field
from recall.anchors.unread import UNREAD_EFFECT, unread_in_tree
from recall.anchors.write import ambiguity_in_tree, close_symbols_in_tree
from recall.clock import now_iso
from recall.known_paths import mean_clause
from recall.lifecycle.disuse import vouched_for
from recall.lifecycle.references import CONFIRMED_KEY
from recall.model import Memory
from recall.store import MemoryStore
from recall.store.changes import refuse_deleted, refuse_pending


@dataclass(frozen=True)
class Confirmed:
    """What confirming a memory recorded."""

    memory: Memory  # as it is now
    stamp: str  # the time recorded as its ``confirmed``
    not_found: tuple[SymbolAnchor, ...] = ()  # anchors whose code could not be read: unconfirmed
    path: Path | None = None  # its file
    unread: dict[str, str] = field(default_factory=dict)
    """Why a file of ``not_found`` is not read for symbols (binary, too large), by its path."""
    close: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The names its file defines spelt closest to an anchor of ``not_found``, by the anchor's
    text (only those with some)."""
    ambiguous: dict[str, str] = field(default_factory=dict)
    """Why an anchor of ``not_found`` names several definitions of its file, by its text."""

    def not_found_notes(self) -> list[str]:
        """One line per anchored symbol that could not be confirmed, saying what to do."""
        memory_id = self.memory.id
        return [self._note(anchor, memory_id) for anchor in self.not_found]

    def _note(self, anchor: SymbolAnchor, memory_id: str) -> str:
        """What to do about one anchored symbol that could not be confirmed."""
        unread = self.unread.get(anchor.path)
        if unread is not None:  # not looked for: "defines no NAME" would send a person hunting
            return (
                f"{memory_id}: symbol {anchor.text} not confirmed: {unread}; {UNREAD_EFFECT}; "
                f"to follow the file alone, `tether supersede {memory_id} SUMMARY -f "
                f"{anchor.path} --no-anchors`, or take it out of `anchors:` in {self.path}"
            )
        ambiguous = self.ambiguous.get(anchor.text)
        if ambiguous is not None:  # there, several times: "defines no NAME" would be untrue
            return (
                f"{memory_id}: symbol {anchor.text} not confirmed: {ambiguous}: `tether "
                f"supersede {memory_id} SUMMARY --anchor {anchor.path}::NAME` with the one it is "
                f"about, or take it out of `anchors:` in {self.path}"
            )
        close = mean_clause(self.close.get(anchor.text, ()))
        return (
            f"{memory_id}: symbol {anchor.text} not confirmed: the working tree defines no "
            f"{anchor.name} in {anchor.path}{close}; if it moved, "
            f"`tether repoint {memory_id} --apply` follows it; if it is gone, `tether supersede "
            f"{memory_id} SUMMARY` rewrites the memory (with --anchor for the code it is about "
            f"now), or take it out of `anchors:` in {self.path}"
        )


def confirm(store: MemoryStore, memory: Memory, genome: Any | None) -> Confirmed:
    """Record that ``memory`` of ``store`` was checked and holds: the time, and its anchors'
    bodies as found through ``genome`` (the project's; None for a global store) in the working
    tree. The person vouched for it, so it is counted as acted on and back from disuse."""
    with store.changing(memory.id) as memory:  # checked as it is under the writers' lock
        refuse_deleted(memory, "confirm")
        refuse_pending(memory, "confirm")
        stamp = now_iso()
        changes: dict[str, Any] = {CONFIRMED_KEY: stamp}
        missing: tuple[SymbolAnchor, ...] = ()
        if memory.anchors:  # their code as it is now is what the memory holds true
            anchors, missing = confirmed_anchors(memory, genome)
            if anchors != memory.anchors or any(
                a.body != b.body for a, b in zip(anchors, memory.anchors, strict=True)
            ):
                changes["anchors"] = anchors_to_field(anchors)
        updated = store.update_fields(memory.id, changes)
        store.write_per_user(lambda conn: vouched_for(conn, memory.id))
    unread = {
        anchor.path: why
        for anchor in missing
        if (why := unread_in_tree(store.repo_root, anchor.path)) is not None
    }
    ambiguous = {
        anchor.text: why
        for anchor in missing
        if anchor.path not in unread
        and (why := ambiguity_in_tree(store.repo_root, anchor.path, anchor.name))
    }
    close = {
        anchor.text: hint
        for anchor in missing
        if anchor.path not in unread
        and anchor.text not in ambiguous
        and (hint := close_symbols_in_tree(store.repo_root, anchor.path, anchor.name))
    }
    path = store.path_of(memory.id)
    return Confirmed(updated, stamp, missing, path, unread, close, ambiguous)
