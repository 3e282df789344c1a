"""The file channels: memories naming a touched file, and memories on files that change
together with it (co-change)."""

from __future__ import annotations

import bisect
import heapq
import math
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from recall.clock import DAY_SECONDS, now
from recall.file_names import EarlierName
from recall.ranking import learned
from recall.ranking import weights as W
from recall.ranking.channels import Channel, Evidence, ranked
from recall.ranking.facts import FactsMemo, Owner
from recall.ranking.query import Touch
from recall.ranking.ties import tie_key_at


def _any_time(path: str) -> EarlierName:
    """``path`` with no history: any memory naming it is about the file there."""
    return EarlierName(path, math.inf)


def touch_weights(touches: Sequence[Touch]) -> dict[str, float]:
    """Each touched path with the weight of the strongest way it was touched."""
    weights: dict[str, float] = {}
    for touch in touches:
        weight = W.touch_weight(touch.kind)
        weights[touch.path] = max(weight, weights.get(touch.path, 0.0))
    return weights


def file_affinity(
    conn: sqlite3.Connection,
    touched: dict[str, float],
    exists: Callable[[str], bool],
    earlier_names: Callable[[str], Sequence[EarlierName]] = lambda path: (),
    memo: FactsMemo | None = None,
    own_name: Callable[[str], EarlierName] = _any_time,
) -> Channel:
    """Memories naming a touched file that exists now, weighted by how rarely the file is named.

    A file keeps its memories through renames: a memory naming an earlier name of a touched
    file (as git's history shows it) counts as naming the file, unless the name was reused
    and the memory written after it was (:func:`recall.file_names.dated_names`); a memory
    naming the file's own name written before another file left that name is about the file
    that left (``own_name``, :func:`recall.file_names.held_since`). The
    oldest memory on a file shared by several (its origin, see ``W.origin_bonus``) gets a
    little more, the more the longer the file has gone without a new memory by the clock.
    Equal file evidence is ranked by :func:`recall.ranking.ties.tie_key` (a gotcha before a
    context note).
    ``memo`` keeps each file's memories between recalls of one index state.
    """
    aliases = file_aliases(touched, exists, earlier_names, own_name)
    return files_channel(conn, touched, aliases, memo, now().timestamp())


Aliases = dict[str, tuple[EarlierName, ...]]
"""Each touched file that exists with the names a memory may give it (itself first, each
memory written since the file took the name; then its earlier names, each with the moment a
memory naming it must predate)."""


def file_aliases(
    touched: dict[str, float],
    exists: Callable[[str], bool],
    earlier_names: Callable[[str], Sequence[EarlierName]] = lambda path: (),
    own_name: Callable[[str], EarlierName] = _any_time,
) -> Aliases:
    """Each touched file that exists now with the names it had (itself first, as
    ``own_name`` dates it, then its earlier names in history, newest first, as
    ``earlier_names`` dates them)."""
    return {path: (own_name(path), *earlier_names(path)) for path in touched if exists(path)}


def repo_aliases(touched: dict[str, float], repo: RepoNames) -> Aliases:
    """:func:`file_aliases` with the names ``repo`` (a repository's signals) dates."""
    return file_aliases(touched, repo.exists, repo.earlier_names, repo.own_name)


class RepoNames(Protocol):
    """What :func:`repo_aliases` asks of a repository's signals."""

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a file of the repository now."""
        ...

    def earlier_names(self, path: str) -> Sequence[EarlierName]:
        """``path``'s earlier names, dated."""
        ...

    def own_name(self, path: str) -> EarlierName:
        """``path`` as the file there now has it, dated."""
        ...


def files_channel(
    conn: sqlite3.Connection,
    touched: dict[str, float],
    aliases: Aliases,
    memo: FactsMemo | None = None,
    present: float = math.inf,
) -> Channel:
    """:func:`file_affinity` of touched files whose names (:func:`file_aliases`) are known;
    ``present`` (the clock, in seconds) is where a file's newest memories are counted from,
    and how long each file has gone without one (:func:`W.origin_bonus`, and the newest bonus
    fading by :func:`W.newest_quiet_scale`); without it both bonuses are the plain ones."""
    names_asked = [n.name for names in aliases.values() for n in names]
    named = (memo or FactsMemo()).owners(conn, names_asked)
    ties: dict[int, tuple[float, ...]] = {}
    scored: dict[int, list[tuple[float, str]]] = defaultdict(list)
    origin: dict[int, float] = {}
    newest: dict[int, float] = {}
    for path, names in aliases.items():
        owners = owners_by_names(named, names)
        magnitude = W.file_magnitude(len(owners), touched[path])  # rarer path, larger
        for rowid, (name, owner) in owners.items():
            # the note names the earlier path when the memory was written before a rename
            scored[rowid].append((magnitude, "" if name == path else name))
            ties[rowid] = tie_key_at(owner.kind, owner.seconds)
        moments = {rowid: owner.seconds for rowid, (_, owner) in owners.items()}
        quiet = _quiet_days(moments.values(), present)
        _add_newest(moments, present, touched[path] * W.newest_quiet_scale(quiet), newest)
        first = min(moments.values(), default=math.inf)
        firsts = sum(1 for moment in moments.values() if moment == first)
        # all written at once, or a batch imported at once ahead of the rest: none came first
        if firsts < len(moments) and firsts <= W.ORIGIN_MAX_TIED:
            bonus = W.origin_bonus(quiet) * min(1.0, max(0.0, touched[path]))
            for rowid, moment in moments.items():
                if moment == first:
                    origin[rowid] = max(origin.get(rowid, 0.0), bonus)
    result: dict[int, tuple[float, float, str, float]] = {}
    for rowid, hits in scored.items():
        if len(hits) == 1:  # one touched file: its magnitude, as combining one hit gives it
            magnitude = hits[0][0] + origin.get(rowid, 0.0)
        else:
            hits.sort(reverse=True)
            magnitude = W.combine_file_hits([m for m, _ in hits]) + origin.get(rowid, 0.0)
        magnitude += newest.get(rowid, 0.0)
        result[rowid] = (magnitude, magnitude, hits[0][1], float(len(hits)))
    return ranked(result, ties)


def owners_by_names(
    named: Mapping[str, Sequence[Owner]], names: Sequence[EarlierName]
) -> dict[int, tuple[str, Owner]]:
    """The memories about one file, by rowid, with the name each gives it: of ``named`` (the
    memories naming each name), those naming one of the file's ``names`` (:func:`file_aliases`)
    and written between the moments that name's date allows (the first name a memory gives
    it, in the order of ``names``)."""
    owners: dict[int, tuple[str, Owner]] = {}
    for name, before, after in names:
        for owner in named.get(name, ()):
            # a memory written after a reused name's rename is about the file there now
            if (before == math.inf or owner.seconds < before) and owner.seconds >= after:
                owners.setdefault(owner.rowid, (name, owner))
    return owners


def _quiet_days(moments: Iterable[float], present: float) -> float:
    """Days from a file's newest memory written by ``present`` (seconds) to the start of
    ``present``'s day (a channel kept for the day ranks as one made at any time of it); 0
    without a clock or such a memory."""
    newest = max((m for m in moments if m <= present), default=-math.inf)
    if not (math.isfinite(present) and math.isfinite(newest)):
        return 0.0
    return max(0.0, (present // DAY_SECONDS * DAY_SECONDS - newest) / DAY_SECONDS)


def _add_newest(
    moments: dict[int, float], present: float, weight: float, newest: dict[int, float]
) -> None:
    """Give the memories on one file (``moments``: rowid -> creation) their newest bonus
    (``W.file_newest_bonus``, scaled by the touch ``weight``) by how many on the file were
    written after each and by ``present`` (one dated later than the clock is no later note
    yet), keeping each memory's best in ``newest``. Only the ``W.file_newest_depth()`` latest
    are counted: past them the bonus is too small to order anything."""
    scale = min(1.0, max(0.0, weight))
    if scale == 0.0:  # a quiet file's newest bonus has faded (or the touch weighs nothing)
        return
    depth = W.file_newest_depth()
    latest = heapq.nlargest(depth + 1, (m for m in moments.values() if m <= present))
    floor = latest[-1] if len(latest) > depth else -math.inf
    latest.reverse()
    for rowid, moment in moments.items():
        if moment < floor or not math.isfinite(moment):
            continue
        newer = len(latest) - bisect.bisect_right(latest, moment)
        bonus = W.file_newest_bonus(newer) * scale
        if bonus > newest.get(rowid, 0.0):
            newest[rowid] = bonus


def newest_cutoff(named: dict[str, tuple[Owner, ...]], present: float) -> float | None:
    """What a file channel over ``named`` owes to the clock: None when no memory there is
    dated after ``present`` (the channel is the same at any later time, so it can be kept),
    else ``present`` itself."""
    for owners in named.values():
        for owner in owners:
            if present < owner.seconds < math.inf:
                return present
    return None


def owner_ties(
    conn: sqlite3.Connection, paths: Sequence[str], memo: FactsMemo
) -> dict[int, tuple[float, ...]]:
    """The tie key (:func:`recall.ranking.ties.tie_key`) of every memory naming one of
    ``paths``."""
    return {
        owner.rowid: tie_key_at(owner.kind, owner.seconds)
        for owners in memo.owners(conn, paths).values()
        for owner in owners
    }


@dataclass(frozen=True)
class NeighbourHit:
    """A co-changing file reached from a touched one."""

    path: str
    via: str
    support: int
    commits: int
    confidence: float
    names: tuple[EarlierName, ...] = ()
    """The names a memory may give the file, dated (:func:`file_aliases`); none read yet: any
    memory naming ``path`` is about it."""

    def aliases(self) -> tuple[EarlierName, ...]:
        """:attr:`names`, or ``path`` at any time when none were read."""
        return self.names or (_any_time(self.path),)


class RepoNeighbours(RepoNames, Protocol):
    """What :func:`reached_neighbours` asks of a repository's signals."""

    def neighbours(self, path: str, k: int) -> Sequence[object]:
        """Files that change together with ``path``, strongest first."""
        ...


def reached_neighbours(touched: dict[str, float], repo: RepoNeighbours) -> list[NeighbourHit]:
    """The neighbours of ``touched`` (:func:`cochange_neighbours`), each with the names it had
    (:func:`repo_aliases`): a memory on an earlier name of a co-changing file is about it, by
    the file channel's rule."""
    hits = cochange_neighbours(touched, repo.neighbours, repo.exists)
    aliases = repo_aliases({hit.path: 1.0 for hit in hits}, repo)
    return [replace(hit, names=aliases.get(hit.path, ())) for hit in hits]


def cochange_neighbours(
    touched: dict[str, float],
    neighbours: Callable[[str, int], Sequence[object]],
    exists: Callable[[str], bool],
) -> list[NeighbourHit]:
    """The capped list of neighbours of touched files: a few per file, a few in all."""
    picked: list[NeighbourHit] = []
    seen = set(touched)
    for path in sorted(touched, key=lambda p: -touched[p]):
        taken = 0
        for neighbour in neighbours(path, W.NEIGHBOURS_PER_FILE * 4):
            name = neighbour.path  # type: ignore[attr-defined]
            if name in seen or not exists(name):
                continue
            if (
                neighbour.confidence < W.COCHANGE_MIN_CONFIDENCE  # type: ignore[attr-defined]
                or neighbour.support < W.COCHANGE_MIN_SUPPORT  # type: ignore[attr-defined]
            ):
                continue
            seen.add(name)
            picked.append(
                NeighbourHit(
                    name,
                    path,
                    neighbour.support,  # type: ignore[attr-defined]
                    neighbour.commits_of_path,  # type: ignore[attr-defined]
                    neighbour.confidence,  # type: ignore[attr-defined]
                )
            )
            taken += 1
            if taken >= W.NEIGHBOURS_PER_FILE or len(picked) >= W.NEIGHBOURS_TOTAL:
                break
        if len(picked) >= W.NEIGHBOURS_TOTAL:
            break
    return picked


def cochange_bound(hits: Sequence[NeighbourHit]) -> float:
    """The most fusion can give a memory that only the co-change channel over ``hits`` puts
    forward (its rank credit and magnitude as :func:`recall.ranking.fuse.fused_scores` adds
    them, at the best rank its neighbour allows), whatever the memory: known before any
    memory on those files is read. 0 without neighbours."""
    weight = W.CHANNEL_WEIGHTS["cochange"]
    rank_factor, magnitude_factor = learned.weight("cochange_rank"), learned.weight("cochange")
    best = 0.0
    for order, hit in enumerate(hits):
        credit = max(0.0, weight * W.rrf(W.COCHANGE_RRF_RANK + order) * rank_factor)
        magnitude = max(0.0, W.cochange_magnitude(hit.confidence, hit.support) * magnitude_factor)
        best = max(best, credit + magnitude)
    return best


def cochange(
    conn: sqlite3.Connection,
    hits: list[NeighbourHit],
    direct: Channel,
    memo: FactsMemo | None = None,
) -> Channel:
    """Memories on co-changing files enter at a fixed, weaker rank than direct hits; a memory
    naming a neighbour by an earlier name is on it as the file channel dates such names
    (:func:`owners_by_names`, over each hit's :meth:`NeighbourHit.aliases`)."""
    named = (memo or FactsMemo()).owners(conn, neighbour_names(hits))
    result: Channel = {}
    for order, hit in enumerate(hits):
        # the same for every memory on the neighbour (a hub neighbour has about 2,000)
        rank = W.COCHANGE_RRF_RANK + order
        magnitude = W.cochange_magnitude(hit.confidence, hit.support)
        # The receipt names the memory's file and how often it changed with the touched one.
        note = f"{hit.path} ({hit.support}/{hit.commits})"
        for rowid in owners_by_names(named, hit.aliases()):
            if rowid in direct or rowid in result:
                continue
            result[rowid] = Evidence(rank, magnitude, note, hit.confidence)
    return result


def neighbour_names(hits: Sequence[NeighbourHit]) -> list[str]:
    """Every name a memory may give one of the neighbours ``hits``."""
    return list(dict.fromkeys(n.name for hit in hits for n in hit.aliases()))
