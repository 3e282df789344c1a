"""A cap on what a crowded file hands to fusion.

A file named by tens of thousands of memories would make every recall that touches it score
them all. Past ``W.FILE_CANDIDATES_MAX`` a file channel passes on only its best-ranked
memories (strongest file evidence, then gotchas and decisions, then the newest), and always
the memories an adjustment can lift far above their file evidence (pinned, or acted on). A
memory it cut that another channel finds (text, semantic) gets its file evidence back. The
hits ranked among the kept ones say so in their receipt.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import islice

from recall.ranking import weights as W
from recall.ranking.channels import Channel
from recall.ranking.file_channels import owner_ties
from recall.ranking.hits import Candidate, Hit
from recall.ranking.store_facts import StoreFacts


@dataclass(frozen=True)
class Cut:
    """A channel cut to its ``ranked`` memories (its best ``limit``) of ``total``."""

    limit: int
    total: int
    ranked: frozenset[int]

    def note(self) -> str:
        """The receipt's words for a hit that was ranked among the kept ones."""
        return f"ranked among the {self.limit:,} strongest of {self.total:,} on its files"


def capped(
    channel: Channel, limit: int, favoured: Callable[[], frozenset[int]]
) -> tuple[Channel, Cut | None]:
    """``channel`` (ranked best first) cut to its first ``limit`` memories plus those of
    ``favoured()`` (asked only when a cut is made), and the cut (None when it held no more
    than ``limit``)."""
    if len(channel) <= limit:
        return channel, None
    kept = dict(islice(channel.items(), limit))
    ranked = frozenset(kept)
    for rowid in favoured():
        if rowid in channel and rowid not in kept:
            kept[rowid] = channel[rowid]
    return kept, Cut(limit, len(channel), ranked)


@dataclass
class Crowding:
    """The cuts made in one store's file and co-change channels, with the channels whole."""

    cuts: dict[str, Cut]
    whole: dict[str, Channel]

    def restore(self, found: dict[str, Channel]) -> None:
        """Give the cut channels of ``found`` back the memories the text and semantic channels
        of ``found`` found (:func:`with_found`)."""
        others = [found[name] for name in ("words", "trigram", "semantic") if name in found]
        for name in self.cuts:
            found[name] = with_found(found[name], self.whole[name], others)


def cut_crowded(
    conn: sqlite3.Connection,
    facts: StoreFacts,
    found: dict[str, Channel],
    neighbour_paths: list[str],
    names: tuple[str, ...] = ("file", "cochange"),
) -> Crowding:
    """Cut the channels ``names`` (``file``, ``cochange``) of ``found`` (in place) that hold
    more than ``W.FILE_CANDIDATES_MAX`` memories. Co-change is not built best first: it is
    ordered by what each memory adds to a score before the cut (:func:`best_first`)."""
    crowding = Crowding({}, {name: found[name] for name in names})
    for name, channel in crowding.whole.items():
        if len(channel) <= W.FILE_CANDIDATES_MAX:
            continue
        if name == "cochange":
            ties = owner_ties(conn, neighbour_paths, facts.memo)
            channel = best_first(channel, W.CHANNEL_WEIGHTS[name], ties)
        found[name], cut = capped(channel, W.FILE_CANDIDATES_MAX, lambda: favoured(conn, facts))
        if cut is not None:
            crowding.cuts[name] = cut
    return crowding


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


def favoured(conn: sqlite3.Connection, facts: StoreFacts) -> frozenset[int]:
    """The memories a cut file channel keeps whatever their rank: pinned or acted on (the
    pinned ones kept in ``facts`` for its index state)."""
    if facts.pinned is None:
        facts.pinned = pinned_rows(conn)
    return favoured_rows(conn, facts.pinned)


def favoured_rows(conn: sqlite3.Connection, pinned: frozenset[int]) -> frozenset[int]:
    """The rowids of the memories an adjustment lifts above any file evidence: ``pinned``
    (kept with the index state) and those acted on (read now: usage changes between index
    states)."""
    acted = conn.execute(
        "SELECT m.rowid FROM usage AS u JOIN memories AS m ON m.id = u.memory_id WHERE u.acted > 0"
    )
    return pinned | frozenset(rowid for (rowid,) in acted)


def pinned_rows(conn: sqlite3.Connection) -> frozenset[int]:
    """The rowids of the pinned memories of the index behind ``conn``."""
    return frozenset(rowid for (rowid,) in conn.execute("SELECT rowid FROM memories WHERE pinned"))


def best_first(channel: Channel, weight: float, ties: Mapping[int, tuple[float, ...]]) -> Channel:
    """``channel`` reordered by what it adds to a score (``weight`` times its rank credit plus
    its magnitude, as fusion adds them), then ``ties`` (smaller first), then rowid: the order a
    cut keeps, for a channel not built in that order (co-change: one rank per neighbouring
    file, neighbours listed by touched file, its magnitude by the pair's confidence)."""

    def key(rowid: int) -> tuple[float, tuple[float, ...], int]:
        evidence = channel[rowid]
        worth = weight * W.rrf(evidence.rank) + evidence.magnitude
        return (-worth, ties.get(rowid, ()), rowid)

    return {rowid: channel[rowid] for rowid in sorted(channel, key=key)}


def note_cuts(hits: list[Hit], chosen: list[Candidate], cuts: dict[tuple[int, str], Cut]) -> None:
    """Say in the receipt of each hit ranked among the kept memories of a cut file channel how
    many of its files' memories were ranked (``hits`` are ``chosen``, hydrated, in the same
    order); one kept for being pinned or acted on, or found by text, was not among them."""
    for hit, candidate in zip(hits, chosen, strict=True):
        notes = [
            cut.note()
            for name in ("file", "cochange")
            if name in candidate.item.evidence
            and (cut := cuts.get((id(candidate.store), name))) is not None
            and candidate.rowid in cut.ranked
        ]
        if notes:
            hit.receipt = ", ".join([hit.receipt, *dict.fromkeys(notes)])
