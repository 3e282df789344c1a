"""What a memory's whole card says beyond the memory's own fields, for ``tether show --json``
and the MCP ``memory_get`` alike: when a person last confirmed it, the names its files had
before a repoint, what became of each file it names that the working tree lacks, whether its
files changed a lot since (the spot check), and where its anchored symbols are now.

The code is looked at for a memory recall may surface only (:func:`recall.repo_signals.
card_genome`); one out of recall says none of it but what its own file holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from recall.anchors.states import AnchorState, state_fields, states_of
from recall.anchors.tree_reads import tree_reads
from recall.json_values import json_value
from recall.lifecycle.dead import files_now
from recall.lifecycle.references import (
    CONFIRMED_KEY,
    FORMER_FILES_KEY,
    Drift,
    drift,
    with_lifecycle_keys,
)
from recall.repo_signals import card_genome

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


@dataclass(frozen=True)
class CardFacts:
    """A memory's review and file facts, as its whole card gives them."""

    confirmed: Any
    former_files: list[Any]
    spot: Drift | None
    states: list[AnchorState]
    files_now: dict[str, str]

    def fields(self) -> dict[str, Any]:
        """The facts as the card's JSON keys: ``confirmed``, ``former_files``, ``spot_check``,
        ``anchor_states`` (and ``anchor_suggestions`` when any) and ``files_now``; a value
        written by hand that JSON cannot hold (an unquoted date, a NaN) as
        :func:`recall.json_values.json_value` gives it."""
        return {
            "confirmed": json_value(self.confirmed)[0],
            "former_files": json_value(self.former_files)[0],
            "spot_check": self.spot.to_dict() if self.spot else None,
            **state_fields(self.states),
            "files_now": self.files_now,
        }


def card_facts(store: MemoryStore, memory: Memory, *, notice: Callable[[str], None]) -> CardFacts:
    """The facts of ``memory`` of ``store``; ``notice`` hears what opening the repository's
    signals has to say (a refresh's notes)."""
    full = with_lifecycle_keys(store, memory)  # confirmed / former_files live in the file only
    genome = card_genome(store, memory, notice=notice)
    # an anchored file the working tree holds otherwise than the index read it is read there
    states = states_of(memory.anchors, genome, tree=tree_reads(genome, memory.anchors))
    return CardFacts(
        confirmed=full.extra.get(CONFIRMED_KEY),
        former_files=full.extra.get(FORMER_FILES_KEY) or [],
        spot=drift(full, genome) if genome is not None else None,
        states=states,
        files_now=files_now(memory, genome) if genome is not None and store.repo_root else {},
    )
