"""Reciprocal-rank fusion: the credit of a rank, each channel's vote, how deep each channel
looks."""

from __future__ import annotations

from typing import Final

# --- fusion -------------------------------------------------------------------------------

#: Reciprocal-rank-fusion constant; 60 is the conventional value that keeps one channel's
#: top rank from outweighing agreement between channels.
RRF_K: Final = 60

#: RRF credit multiplier per channel. Direct file hits, co-change and whole-word text are
#: first-class evidence; trigram (substring) matches are weaker evidence and get half a vote;
#: the crude hash-bag semantic channel mostly repeats the word channel's evidence less
#: precisely, and gets a quarter (half measured worse once text scored each column apart).
CHANNEL_WEIGHTS: Final[dict[str, float]] = {
    "file": 1.0,
    "cochange": 1.0,
    "words": 1.0,
    "trigram": 0.5,
    "semantic": 0.25,
}

#: Candidates fetched from each FTS5 table; ranks past 50 earn under 1/110 of RRF credit and
#: only cost time.
TEXT_CANDIDATES: Final = 50

#: Candidates taken from the semantic channel, for the same reason as TEXT_CANDIDATES.
SEMANTIC_CANDIDATES: Final = 50

#: Memories a file channel (direct or co-change) passes on to fusion, best file evidence
#: first: above the most crowded file of the shared histories (1,941 memories on
#: networkmanager's ChangeLog, 1,809 on its nm-device.c), so real hub files rank whole,
#: while 100k memories on one file still cost what a hub file costs; the cut ones that the
#: text or semantic channel finds keep their file evidence, and the receipt says so.
FILE_CANDIDATES_MAX: Final = 3000

#: A memory needs at least this cosine to be a semantic candidate at all: zero means no
#: feature in common, and a rounding-level positive is no evidence either.
SEMANTIC_MIN_COSINE: Final = 1e-6


def rrf(rank: int) -> float:
    """Reciprocal-rank-fusion credit of a 1-based rank (ranks below 1 count as 1)."""
    return 1.0 / (RRF_K + max(1, rank))
