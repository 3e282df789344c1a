"""The scores fusion gives without building signals are the scores it gives with them."""

from __future__ import annotations

import random

import pytest

from recall.ranking import weights as W
from recall.ranking.channels import Channel, Evidence
from recall.ranking.fuse import fuse, fused_scores


def _channels(seed: int) -> dict[str, Channel]:
    rng = random.Random(seed)
    found: dict[str, Channel] = {}
    for name in ("file", "cochange", "words", "trigram", "semantic"):
        rowids = rng.sample(range(400), rng.randint(0, 200))
        found[name] = {
            rowid: Evidence(rank, rng.random() * 0.4, "", rng.random())
            for rank, rowid in enumerate(rowids, start=1)
        }
    return found


@pytest.mark.parametrize("learned_on", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_scores_alone_match_the_full_fusion_to_the_bit(
    seed: int, learned_on: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(W, "LEARNED_RANKER", learned_on)
    channels = _channels(seed)
    full = fuse(channels)
    scores = fused_scores(channels)
    assert list(scores) == list(full)  # the same candidates, met in the same order
    assert scores == {rowid: item.score for rowid, item in full.items()}
