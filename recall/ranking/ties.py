"""The order of memories whose file evidence is equal: what to review before editing first,
then the newest. Recall's file channel breaks its ties by it, and the edit hooks pick the
warnings they show by it (after the pinned ones)."""

from __future__ import annotations

import math

from recall.clock import parse_timestamp
from recall.errors import BadInput
from recall.ranking import weights as W


def tie_key(kind: str, created: str) -> tuple[float, ...]:
    """Order of memories with equal file evidence: what to review before editing (a gotcha,
    a decision) first, then (``W.FILE_TIES_NEWEST_FIRST``) the newest; smaller first."""
    return tie_key_at(kind, moment(created))


def tie_key_at(kind: str, seconds: float) -> tuple[float, ...]:
    """:func:`tie_key` of a creation time already in seconds (inf when unreadable)."""
    review = 0.0 if kind in W.REVIEW_KINDS else 1.0
    return (review, -seconds) if W.FILE_TIES_NEWEST_FIRST else (review,)


def moment(stamp: str) -> float:
    """A creation time as seconds, so offsets and "Z" compare as the moments they name; an
    unreadable one is inf (never a file's origin)."""
    try:
        return parse_timestamp(stamp).timestamp()
    except BadInput:
        return math.inf
