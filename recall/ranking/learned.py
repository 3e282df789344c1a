"""Learned weights of the signals a recall score sums, fitted on real fix histories.

A recall score is the sum of its signals: each channel's bounded magnitude and rank credit,
then the adjustments (recency, module, blast radius, feedback, pin); ``recall.ranking.weights`` sets
their scales by hand. The learned ranker is a linear model over the same signals: each is
multiplied by a weight fitted (``recall.ranking.fit_learned``) on the pre-cut tasks of the
shared fix histories, and the weights ship in ``learned_weights.json`` beside this module.
Scoring stays one multiplication per signal (no model call, no numpy); which channels fired,
and so the receipt, does not change. A signal the file does not name keeps weight 1 (its
hand-set scale): the histories have no pins nor feedback to learn those from.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Final

from recall.errors import BadInput
from recall.ranking import weights as W

WEIGHTS_FILE: Final = Path(__file__).with_name("learned_weights.json")
"""The fitted weights (written by ``python -m recall.ranking.fit_learned``)."""


def read_weights(path: Path) -> dict[str, float]:
    """The ``weights`` of a learned-weights file: {signal name: non-negative weight}.

    Raises BadInput naming the file when it cannot be read or a weight is not a
    non-negative number.
    """
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BadInput(f"{path}: cannot read the learned ranker's weights ({error})") from None
    weights = data.get("weights") if isinstance(data, dict) else None
    if not isinstance(weights, dict):
        raise BadInput(
            f"{path}: no 'weights' object; refit with python -m recall.ranking.fit_learned"
        )
    checked: dict[str, float] = {}
    for name, value in weights.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            raise BadInput(f"{path}: weight {name!r} must be a number >= 0, not {value!r}")
        checked[str(name)] = float(value)
    return checked


@cache
def _shipped() -> dict[str, float]:
    return read_weights(WEIGHTS_FILE)


def weight(signal: str) -> float:
    """The factor a signal's contribution is multiplied by: its learned weight when the
    learned ranker is on (``W.LEARNED_RANKER``), else 1 (the hand-set scales alone)."""
    if not W.LEARNED_RANKER:
        return 1.0
    return _shipped().get(signal, 1.0)


def reach(bounds: dict[str, float]) -> float:
    """The most the signals of ``bounds`` ({name: largest contribution}) can add together
    once weighted."""
    return sum(weight(name) * bound for name, bound in bounds.items())
