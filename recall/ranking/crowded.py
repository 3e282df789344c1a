"""A cap on what a crowded file hands to fusion.

A file named by tens of thousands of memories would make every recall that touches it score
them all. Past ``W.FILE_CANDIDATES_MAX`` a file channel passes on only its best-ranked
memories (strongest file evidence, then gotchas and decisions, then the newest); a memory it
cut that another channel finds (text, semantic) gets its file evidence back, and the hits
that came through a cut channel say so in their receipt.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice

from recall.ranking.channels import Channel


@dataclass(frozen=True)
class Cut:
    """A channel cut to ``kept`` of its ``total`` memories."""

    kept: int
    total: int

    def note(self) -> str:
        """The receipt's words for a hit that came through the cut channel."""
        return f"ranked among the {self.kept:,} strongest of {self.total:,} on its files"


def capped(channel: Channel, limit: int) -> tuple[Channel, Cut | None]:
    """``channel`` (ranked best first) cut to its first ``limit`` memories, and the cut made
    (None when it held no more than ``limit``)."""
    if len(channel) <= limit:
        return channel, None
    return dict(islice(channel.items(), limit)), Cut(limit, len(channel))


def with_found(kept: Channel, whole: Channel, others: Iterable[Channel]) -> Channel:
    """``kept`` plus the evidence ``whole`` holds for every memory another channel found: a
    cut memory that the text names keeps the file evidence it has."""
    back = {
        rowid: whole[rowid]
        for channel in others
        for rowid in channel
        if rowid in whole and rowid not in kept
    }
    return {**kept, **back} if back else kept
