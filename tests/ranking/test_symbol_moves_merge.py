"""Merging moved-symbol hits into the file channel leaves the channel it was given as it was:
a long-lived engine keeps that channel for later recalls of the same files."""

from __future__ import annotations

from recall.ranking.channels import Evidence
from recall.ranking.symbol_moves import merge_into_file


def test_the_kept_file_channel_is_not_ranked_again_in_place() -> None:
    kept = {7: Evidence(1, 0.30), 9: Evidence(2, 0.25)}
    merged = merge_into_file(kept, {4: (0.40, "retry, moved from src/old.c")})
    assert [(rowid, e.rank) for rowid, e in merged.items()] == [(4, 1), (7, 2), (9, 3)]
    assert merged[4].via == "retry, moved from src/old.c"
    assert [(rowid, e.rank) for rowid, e in kept.items()] == [(7, 1), (9, 2)]
    assert merge_into_file(kept, {}) is kept
