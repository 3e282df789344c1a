"""Fusing channel evidence into one score per memory, with the receipt that explains it."""

from __future__ import annotations

from dataclasses import dataclass, field

from recall.ranking import learned
from recall.ranking import weights as W
from recall.ranking.channels import Channel, Evidence

RECEIPT_ORDER = ("file", "cochange", "words", "trigram", "semantic")

DRIFT_NOTE = "spot-check: its files changed a lot since"
"""Receipt mark of a memory whose files saw many commits since it was written or confirmed."""


@dataclass
class Fused:
    """One memory's fused score and the contribution of each signal to it."""

    rowid: int
    score: float = 0.0
    signals: dict[str, float] = field(default_factory=dict)
    evidence: dict[str, Evidence] = field(default_factory=dict)

    def add(self, name: str, amount: float) -> None:
        """Add a contribution under a signal name (times its learned weight, when the learned
        ranker is on: :func:`learned.weight`)."""
        amount *= learned.weight(name)
        if amount:
            self.signals[name] = self.signals.get(name, 0.0) + amount
            self.score += amount


def fuse(channels: dict[str, Channel]) -> dict[int, Fused]:
    """Reciprocal-rank credit from every channel plus each channel's bounded magnitude; the two
    text channels together count as much as the stronger of them."""
    return {rowid: fuse_one(rowid, channels) for rowid in fused_scores(channels)}


def fuse_one(rowid: int, channels: dict[str, Channel]) -> Fused:
    """:func:`fuse` of one memory: its score, the contribution of each signal, its evidence."""
    item = Fused(rowid)
    for name, channel in channels.items():
        evidence = channel.get(rowid)
        if evidence is None:
            continue
        item.evidence[name] = evidence
        item.add(f"{name}_rank", W.CHANNEL_WEIGHTS[name] * W.rrf(evidence.rank))
        if name != "trigram":
            item.add(name, evidence.magnitude)
    trigram = item.evidence.get("trigram")
    if trigram is not None:
        # A substring match of words the word channel already matched is the same evidence
        # seen twice: the trigram magnitude counts only what it adds over the word match.
        words = item.evidence["words"].magnitude if "words" in item.evidence else 0.0
        item.add("trigram", max(0.0, trigram.magnitude - words))
    return item


def fused_scores(channels: dict[str, Channel]) -> dict[int, float]:
    """The score :func:`fuse` gives each memory (the same sums in the same order, to the last
    bit), without the signals and evidence only the memories shown need: a crowded file's
    thousands of candidates pass here on every query."""
    scores: dict[int, float] = {}
    for name, channel in channels.items():
        weight = W.CHANNEL_WEIGHTS[name]
        rank_factor, magnitude_factor = learned.weight(f"{name}_rank"), learned.weight(name)
        with_magnitude = name != "trigram"
        for rowid, evidence in channel.items():
            score = scores.get(rowid, 0.0)
            amount = weight * W.rrf(evidence.rank) * rank_factor
            if amount:
                score += amount
            if with_magnitude:
                amount = evidence.magnitude * magnitude_factor
                if amount:
                    score += amount
            scores[rowid] = score
    words, factor = channels.get("words", {}), learned.weight("trigram")
    for rowid, evidence in channels.get("trigram", {}).items():
        matched = words[rowid].magnitude if rowid in words else 0.0
        amount = max(0.0, evidence.magnitude - matched) * factor
        if amount:
            scores[rowid] += amount
    return scores


def receipt(item: Fused, *, pinned: bool, fan_in: int = 0, drift: bool = False) -> str:
    """One line saying why a memory surfaced: ``via file, sem 0.59``; ``pinned``; ``via text``."""
    parts: list[str] = []
    evidence = item.evidence
    if "file" in evidence:
        earlier = evidence["file"].note
        if evidence["file"].via:
            parts.append(f"via symbol {evidence['file'].via}")
        else:
            parts.append(f"via file (renamed from {earlier})" if earlier else "via file")
    if fan_in >= W.BLAST_RECEIPT_MIN:
        parts.append(f"imported by {fan_in} files")
    if "cochange" in evidence:
        parts.append(f"via co-change with {evidence['cochange'].note}")
    if ("words" in evidence or "trigram" in evidence) and not parts:
        parts.append("via text")
    elif "words" in evidence or "trigram" in evidence:
        parts.append("text")
    sem = evidence.get("semantic")
    if sem is not None and sem.value >= W.SEMANTIC_GATE:
        parts.append(f"sem {sem.value:.2f}")
    if pinned:
        parts.append("pinned")
    if drift:
        parts.append(DRIFT_NOTE)
    if not parts:
        # only a semantic neighbour below the gate: rank credit, no magnitude
        parts.append("via weak similarity" if sem else "via weak match")
    return ", ".join(parts)
