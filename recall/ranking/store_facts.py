"""What the engine remembers of one store between recalls, for one state of its index."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

from recall.ranking import channels as ch
from recall.ranking import text_channel as tc
from recall.ranking.facts import FactsMemo
from recall.ranking.shown import Lifecycle


@dataclass
class StoreFacts:
    """What the engine remembers of one store between recalls, valid for one index state."""

    stamp: str
    active: int
    inactive: frozenset[int]
    vocabulary: tc.Vocabulary
    lifecycle: Lifecycle = field(default_factory=dict)
    """The lifecycle keys read from the files of memories shown (see :func:`shown.mark_drift`)."""
    postings: Any = None
    """The word index's counts kept for the text channel (a long-lived engine only)."""
    phrases: Any = None
    """The trigram index's bm25 shares kept per phrase for the text channel (a long-lived
    engine only, ``phrase_scores.PhraseScores``)."""
    memo: FactsMemo = field(default_factory=FactsMemo)
    """Candidates' facts and each file's memories, read once for this index state."""
    file_channels: dict[tuple[Any, ...], ch.Channel] = field(default_factory=dict)
    """The file channel of each set of touched files asked
    (:func:`recall.ranking.file_hits.kept_file_channel`)."""
    any_anchor: bool | None = None
    """Whether any memory has a symbol anchor (asked on first use): without one no symbol can
    have moved, and the symbol code is not even imported."""
    pinned: frozenset[int] | None = None
    """The rowids of the pinned memories (read when a crowded file's channel is first cut)."""
    moves: Any = None
    """What is known of symbols moved into touched files (``symbol_moves.MovesKept``, made on
    first use: a prompt hook never loads the symbol code)."""

    def forget_rankings(self) -> None:
        """Drop the file channels and phrase scores kept for this index state, so that the next
        recall ranks under the constants of ``recall.ranking.weights`` as they are then (a
        benchmark scoring variants of them changes them between recalls)."""
        self.file_channels.clear()
        self.phrases = None


def any_symbol_anchor(conn: sqlite3.Connection) -> bool:
    """Whether any memory of the index behind ``conn`` has a symbol anchor."""
    try:
        return conn.execute("SELECT 1 FROM memory_anchors LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:  # an index from before symbol anchors
        return False
