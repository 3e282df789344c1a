"""What a recall returns (hits and their timings), the candidates it ranks on the way, and
what it asks of the repository."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from recall.file_names import EarlierName
from recall.model import Memory
from recall.ranking import weights as W
from recall.ranking.fuse import Fused

if TYPE_CHECKING:
    from recall.store import MemoryStore


class RepoSignals(Protocol):
    """What the ranker asks of the repository (the genome, or a plain working tree)."""

    def exists(self, path: str) -> bool:
        """Whether the file is in the working tree now."""
        ...

    def neighbours(self, path: str, k: int) -> Sequence[Any]:
        """Files that change together with ``path``, strongest first."""
        ...

    def fan_in(self, path: str) -> int:
        """How many files import ``path``."""
        ...

    def renamed_from(self, path: str) -> list[str]:
        """Earlier names of ``path`` in history, newest first."""
        ...

    def earlier_names(self, path: str) -> list[EarlierName]:
        """The earlier names a memory may give ``path``, each dated (see
        :func:`recall.file_names.dated_names`)."""
        ...

    def own_name(self, path: str) -> EarlierName:
        """``path`` dated as the file there now has it (see
        :func:`recall.file_names.held_since`)."""
        ...


class WorkingTree:
    """Repository signals without git history: existence only (no co-change, no fan-in)."""

    def __init__(self, root: Path | None) -> None:
        self.root = root

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists under the root."""
        return self.root is not None and os.path.exists(self.root / path)

    def neighbours(self, path: str, k: int) -> Sequence[Any]:
        """No history, no neighbours."""
        return []

    def fan_in(self, path: str) -> int:
        """No import scan, no fan-in."""
        return 0

    def renamed_from(self, path: str) -> list[str]:
        """No history, no renames."""
        return []

    def earlier_names(self, path: str) -> list[EarlierName]:
        """No history, no earlier names."""
        return []

    def own_name(self, path: str) -> EarlierName:
        """No history: any memory naming ``path`` is about the file there."""
        return EarlierName(path, math.inf)


@dataclass
class Hit:
    """One recalled memory with its score, the signals that fired and the receipt."""

    memory: Memory
    scope: str
    score: float
    signals: dict[str, float]
    receipt: str
    strong: bool
    drift: int = 0
    """Commits on the memory's busiest file since it was written or confirmed, when that is
    at least the spot-check threshold; 0 otherwise."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``recall --json`` and ``--batch`` (``secret_masked`` when the
        summary holds a credential that :func:`recall.agent_text.mask_hits` masked)."""
        from recall.agent_text import marked

        data = {
            "id": self.memory.id,
            "summary": self.memory.summary,
            "category": self.memory.category,
            "scope": self.scope,
            "score": round(self.score, 4),
            "receipt": self.receipt,
            "signals": {k: round(v, 4) for k, v in sorted(self.signals.items())},
            "pinned": self.memory.pinned,
            "files": list(self.memory.files),
            "strong": self.strong,
            "spot_check": self.drift or None,
        }
        return marked(data, self.memory)


@dataclass
class RecallResult:
    """Ranked hits and where the time went."""

    hits: list[Hit]
    elapsed_ms: float
    timings_ms: dict[str, float] = field(default_factory=dict)
    query_text: str = ""


@dataclass
class Candidate:
    """A memory that may be shown: its store, its fused and adjusted score, its fan-in, the
    files it names (as the index's file rows say)."""

    store: MemoryStore
    rowid: int
    id: str
    content_hash: str
    item: Fused
    fan_in: int
    files: frozenset[str]


def add_time(timings: dict[str, float], name: str, since: float) -> None:
    """Add the milliseconds since ``since`` to the stage ``name`` of ``timings``."""
    timings[name] = timings.get(name, 0.0) + (time.perf_counter() - since) * 1000


def is_strong(item: Fused, memory: Memory) -> bool:
    """Whether a hit clears the bar for unasked injection (silence is a valid answer)."""
    evidence = item.evidence
    relevant = (
        "file" in evidence
        or "cochange" in evidence
        or ("words" in evidence and evidence["words"].magnitude >= W.TEXT_STRONG)
        or ("trigram" in evidence and evidence["trigram"].magnitude >= W.TEXT_STRONG)
        or ("semantic" in evidence and evidence["semantic"].value >= W.SEMANTIC_GATE)
    )
    return relevant and item.score >= W.INJECT_MIN_SCORE


def merge_scopes(found: list[Candidate]) -> list[Candidate]:
    """Collapse the same knowledge found in several scopes; the project copy wins ties."""
    best: dict[str, Candidate] = {}
    for candidate in found:
        key = candidate.content_hash
        current = best.get(key)
        if current is None:
            best[key] = candidate
            continue
        score, held = candidate.item.score, current.item.score
        better = score > held + 1e-9 or (
            math.isclose(score, held, abs_tol=1e-9) and candidate.store.scope == "project"
        )
        if better:
            best[key] = candidate
    return list(best.values())
