"""The adjustments of fused candidates that need their facts (files, age, usage, pin), read
for the candidates that could still be shown."""

from __future__ import annotations

import heapq
import math
import sqlite3
import time
from collections.abc import Sequence

from recall.clock import now, parse_timestamp
from recall.errors import BadInput
from recall.ranking import learned
from recall.ranking import weights as W
from recall.ranking.channels import Channel
from recall.ranking.facts import FactsMemo, usage_of
from recall.ranking.file_channels import NeighbourHit
from recall.ranking.fuse import Fused, fuse_one, fused_scores
from recall.ranking.hits import Candidate, RepoSignals, add_time
from recall.store import MemoryStore

FACTS_FIRST_ROUND = 64
"""Candidates whose facts are read first (at least); a speed setting, not a judgement: any
value ranks the same."""
FACTS_ROUND_FACTOR = 4
"""...or this many times the hits asked for, when that is more."""


class Adjuster:
    """The adjustments of one recall: the repository asked once per file for fan-in and once
    for the module being worked on."""

    def __init__(
        self,
        repo: RepoSignals,
        touched: dict[str, float],
        neighbours: Sequence[NeighbourHit],
        named: frozenset[str] = frozenset(),
    ) -> None:
        """Adjust for a recall that touched ``touched``, reached ``neighbours`` and whose
        prompt names things by ``named`` (:func:`recall.ranking.introducers.named_words`)."""
        self.repo = repo
        self.touched = touched
        self.named = named if W.INTRODUCER_BONUS > 0 else frozenset()
        # the files through which a memory is relevant: touched, or a co-changing neighbour
        self.reached = touched.keys() | {hit.path for hit in neighbours}
        self._fan_in: dict[str, int] = {}
        self._module: set[str] | None = None

    def fan_in(self, path: str) -> int:
        """Import fan-in of a file, asked of the repository once per recall."""
        if path not in self._fan_in:
            self._fan_in[path] = self.repo.fan_in(path)
        return self._fan_in[path]

    def module(self) -> set[str]:
        """Files that change together with the touched ones: the module being worked on."""
        if self._module is None:
            module: set[str] = set()
            for path in self.touched:
                module.update(n.path for n in self.repo.neighbours(path, W.MODULE_NEIGHBOURS))
            self._module = module
        return self._module

    def finish(
        self,
        store: MemoryStore,
        memo: FactsMemo,
        channels: dict[str, Channel],
        timings: dict[str, float],
        limit: int,
    ) -> list[Candidate]:
        """The candidates of ``channels`` that may be shown, fused and adjusted, in rowid order.

        The adjustments move a score by a bounded amount (:func:`adjust_reach`), so the best
        fused candidates are adjusted first; the others only if they could still reach the
        ``limit`` best (:meth:`could_reach`). Only those are fused in full (signals and
        evidence); the rest get a score. At most two rounds, a few statements each.
        """
        tick = time.perf_counter()
        scores = fused_scores(channels)
        order = sorted(scores, key=lambda rowid: -scores[rowid])
        add_time(timings, "fusion", tick)
        if not order:
            return []
        first = max(limit * FACTS_ROUND_FACTOR, FACTS_FIRST_ROUND)
        found = self.adjusted(store, memo, [fuse_one(r, channels) for r in order[:first]], timings)
        if len(order) > first:
            tick = time.perf_counter()
            bar = kth_best(found, limit)
            reach = adjust_reach()
            rest = [rowid for rowid in order[first:] if scores[rowid] + reach >= bar - 1e-9]
            rest = self.could_reach(store, memo, rest, scores, channels.get("file", {}), bar)
            add_time(timings, "adjust", tick)
            found += self.adjusted(store, memo, [fuse_one(r, channels) for r in rest], timings)
        found.sort(key=lambda candidate: candidate.rowid)
        return found

    def could_reach(
        self,
        store: MemoryStore,
        memo: FactsMemo,
        rowids: list[int],
        scores: dict[int, float],
        on_file: Channel,
        bar: float,
    ) -> list[int]:
        """``rowids`` whose fused score (``scores``) could still reach ``bar`` once adjusted,
        by a bound on each one's own facts: its recency exactly when it was never used (most
        memories on a crowded file), the largest fan-in of the files it could be relevant
        through, and the largest module (``on_file``: the file channel's memories), usage and
        pin bonuses only where they can apply."""
        if not rowids:
            return []
        conn = store.conn
        statics = memo.statics(conn, rowids)
        used = usage_of(conn, [fact.id for fact in statics.values()]).keys()
        blast = learned.weight("blast") * max(
            (W.blast_bonus(self.fan_in(path)) for path in self.reached), default=0.0
        )
        blast += self._introducer_reach()
        module = learned.weight("module") * W.MODULE_MAX
        recency = learned.weight("recency")
        top = recency * W.recency_top()
        pinned = top + learned.weight("pinned") * W.PINNED_BONUS
        acted = top + learned.weight("acted") * W.ACTED_BONUS_MAX
        newest = top
        moment = now().timestamp()
        kept_set: set[int] = set()
        plain: dict[int, float] = {}  # never used nor pinned, in reach: rowid -> recency
        for rowid in rowids:
            fact = statics.get(rowid)
            if fact is None or fact.replaced:
                continue  # never shown: inactive or superseded
            if fact.pinned:
                bound = pinned
            elif fact.id in used:
                bound = acted  # the ignore penalty only lowers it
            else:
                if scores[rowid] + blast + module + newest < bar - 1e-9:
                    continue  # not even as new as now: no need to age it
                days = 0.0 if fact.then is None else max(0.0, (moment - fact.then) / 86400.0)
                bound = aged = recency * W.recency_bonus(days)
            if rowid in on_file:
                bound += module
            if scores[rowid] + blast + bound >= bar - 1e-9:
                if fact.pinned or fact.id in used:
                    kept_set.add(rowid)
                else:  # its only unknowns are its files: read them, then know
                    plain[rowid] = aged
        exact = set(self._exactly_in_reach(conn, memo, plain, scores, on_file, bar))
        return [rowid for rowid in rowids if rowid in exact or rowid in kept_set]

    def _exactly_in_reach(
        self,
        conn: sqlite3.Connection,
        memo: FactsMemo,
        plain: dict[int, float],
        scores: dict[int, float],
        on_file: Channel,
        bar: float,
    ) -> list[int]:
        """Of ``plain`` (never used, never pinned: rowid -> its weighted recency), those
        whose adjusted score reaches ``bar``. Such a memory's adjustments are its blast
        radius, its module share and its recency, known once its files are (and at most the
        introducer bonus, counted in full here): on a file every
        memory names with many others, the module's largest bonus keeps nearly all of them in
        reach by the bounds alone, and their files cost less than adjusting them all."""
        if not plain:
            return []
        files = memo.files(conn, list(plain))
        module, reached, touched = self.module(), self.reached, self.touched.keys()
        blast_weight, module_weight = learned.weight("blast"), learned.weight("module")
        introducer = self._introducer_reach()
        found: list[int] = []
        for rowid, recency in plain.items():
            through = files[rowid] & reached
            fan_in = max(map(self.fan_in, through)) if through else 0
            bonus = blast_weight * W.blast_bonus(fan_in) + introducer
            if rowid in on_file:
                others = files[rowid] - touched
                if others:
                    bonus += module_weight * W.module_bonus(len(others & module) / len(others))
            if scores[rowid] + bonus + recency >= bar - 1e-9:
                found.append(rowid)
        return found

    def _introducer_reach(self) -> float:
        """The most the introducer bonus can add to one candidate of this recall."""
        return learned.reach({"introduces": W.INTRODUCER_BONUS}) if self.named else 0.0

    def adjusted(
        self, store: MemoryStore, memo: FactsMemo, items: list[Fused], timings: dict[str, float]
    ) -> list[Candidate]:
        """``items`` that may be shown (active, not superseded, not archived by disuse), their
        scores adjusted."""
        if not items:
            return []
        tick = time.perf_counter()
        conn = store.conn
        statics = memo.statics(conn, [item.rowid for item in items])
        usage = usage_of(conn, [fact.id for fact in statics.values()])
        files = memo.files(conn, list(statics))
        brought_in = memo.brought_in(conn, list(statics)) if self.named else {}
        add_time(timings, "candidates", tick)
        tick = time.perf_counter()
        fused = {item.rowid: item for item in items}
        moment = now().timestamp()
        module, reached, touched = self.module(), self.reached, self.touched.keys()
        found: list[Candidate] = []
        for rowid in sorted(statics):
            fact = statics[rowid]
            if fact.replaced:
                continue
            used = usage.get(fact.id)
            if used is not None and used.archived and not fact.pinned:
                continue  # archived by this user's disuse (lifecycle.disuse); pinned are exempt
            item = fused[rowid]
            # The fan-in that matters is that of the file through which the memory is relevant.
            through = files[rowid] & reached
            fan_in = max(map(self.fan_in, through)) if through else 0
            item.add("blast", W.blast_bonus(fan_in))
            if "file" in item.evidence:
                others = files[rowid] - touched
                if others:  # a memory's files are distinct: the share counts each once
                    item.add("module", W.module_bonus(len(others & module) / len(others)))
            if used is not None and used.last_acted:
                days = days_since(used.last_acted, moment)
            else:
                days = 0.0 if fact.then is None else max(0.0, (moment - fact.then) / 86400.0)
            item.add("recency", W.recency_bonus(days, pinned=fact.pinned))
            if self.named and not self.named.isdisjoint(brought_in[rowid]):
                item.add("introduces", W.INTRODUCER_BONUS)
            if fact.pinned:
                item.add("pinned", W.PINNED_BONUS)
            elif used is not None:
                item.add("ignored", W.ignore_penalty(used.surfaced, used.acted))
                item.add("acted", W.acted_bonus(used.acted))
            found.append(
                Candidate(store, rowid, fact.id, fact.content_hash, item, fan_in, files[rowid])
            )
        add_time(timings, "adjust", tick)
        return found


def days_since(stamp: str | None, moment_ts: float) -> float:
    """Days from ``stamp`` to the moment ``moment_ts`` (0 when unknown or in the future)."""
    if not stamp:
        return 0.0
    try:
        then = parse_timestamp(stamp).timestamp()
    except BadInput:
        return 0.0
    return max(0.0, (moment_ts - then) / 86400.0)


def adjust_reach() -> float:
    """The most :meth:`Adjuster.adjusted` can add to a fused score (the penalty only lowers
    it), with the signals' learned weights."""
    bounds = {
        "blast": W.BLAST_MAX,
        "module": W.MODULE_MAX,
        "recency": W.recency_top(),
        "introduces": W.INTRODUCER_BONUS,
    }
    return learned.reach(bounds) + max(
        learned.reach({"pinned": W.PINNED_BONUS}), learned.reach({"acted": W.ACTED_BONUS_MAX})
    )


def kth_best(found: list[Candidate], k: int) -> float:
    """The ``k``-th best score among distinct contents of ``found`` (a candidate scoring
    below it cannot be among the ``k`` shown), or -inf when there are fewer."""
    best: dict[str, float] = {}
    for candidate in found:
        score = candidate.item.score
        if score > best.get(candidate.content_hash, -math.inf):
            best[candidate.content_hash] = score
    if len(best) < k:
        return -math.inf
    return heapq.nlargest(k, best.values())[-1]
