"""The ranking channels: each turns the query into a ranked list of candidate memories.

A channel returns ``{rowid: Evidence}``; the fuser turns ranks into reciprocal-rank credit and
adds the bounded magnitudes. Only active memories are ever candidates. The file and co-change
channels are in :mod:`recall.ranking.file_channels`, the text channels in
:mod:`recall.ranking.text_channel`; this module holds what they share and the semantic channel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from recall.ranking import weights as W
from recall.ranking.facts import JSON_VALUES

__all__ = ["JSON_VALUES", "Channel", "Evidence", "semantic"]


@dataclass
class Evidence:
    """Why one channel put one memory forward: its rank there, a magnitude, a receipt note."""

    rank: int
    magnitude: float = 0.0
    note: str = ""
    value: float = 0.0
    via: str = ""
    """For a file hit through a moved symbol: the receipt's phrase (see ``symbol_moves``)."""


Channel = dict[int, Evidence]


def ranked(
    scored: dict[int, tuple[float, float, str, float]],
    ties: dict[int, tuple[float, ...]] | None = None,
) -> Channel:
    """Turn {rowid: (sort key, magnitude, note, value)} into evidence ranked by key, best first;
    equal keys by ``ties`` (smaller first) when given, then by rowid."""
    order = ties or {}
    ordered = sorted(
        scored.items(), key=lambda item: (-item[1][0], order.get(item[0], ()), item[0])
    )
    return {
        rowid: Evidence(rank, magnitude, note, value)
        for rank, (rowid, (_, magnitude, note, value)) in enumerate(ordered, start=1)
    }


def semantic(similar: Sequence[tuple[int, float]]) -> Channel:
    """The memories nearest the prompt as ``(rowid, cosine)``, ranked; below the gate they get
    rank credit only."""
    scored = {
        rowid: (cosine, W.semantic_magnitude(cosine), "", cosine) for rowid, cosine in similar
    }
    return ranked(scored)
