"""The baseline rankers of the recall-quality data's README, computed on the same tasks.

Each ranker takes a task (prompt, touched files) and returns memory indexes, best first.
Memories are given oldest first; ``visible`` says how many of the first ones exist at the
task (a pre-cut task sees only the memories older than itself), ``moment`` the history
index up to which renames are known (the task's own, or the cut's).
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

TOKEN = re.compile(r"[a-z0-9]{2,}")
K1 = 1.2  # Okapi defaults
B = 0.75


@dataclass(frozen=True)
class MemoryRecord:
    """One memory of the benchmark: a commit of the history."""

    key: str
    summary: str
    details: str
    files: tuple[str, ...]
    ts: int


def tokens(text: str) -> list[str]:
    """Lowercase ``[a-z0-9]{2,}`` tokens, as the README's baselines used."""
    return TOKEN.findall(text.lower())


class BM25:
    """Okapi BM25 over summary + details, with the statistics of the first ``visible`` only."""

    def __init__(self, memories: Sequence[MemoryRecord]) -> None:
        self.docs = [Counter(tokens(f"{m.summary}\n{m.details}")) for m in memories]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.prefix = [0]
        for length in self.lengths:
            self.prefix.append(self.prefix[-1] + length)
        self.postings: dict[str, list[int]] = defaultdict(list)  # ascending memory indexes
        for index, doc in enumerate(self.docs):
            for term in doc:
                self.postings[term].append(index)

    def scores(self, query: str, visible: int | None = None) -> dict[int, float]:
        """BM25 score of every visible memory containing at least one query token."""
        n = len(self.docs) if visible is None else min(visible, len(self.docs))
        avg = self.prefix[n] / max(1, n)
        result: dict[int, float] = defaultdict(float)
        for term in set(tokens(query)):
            posting = self.postings.get(term, [])
            having = bisect.bisect_left(posting, n)
            if not having:
                continue
            idf = math.log(1 + (n - having + 0.5) / (having + 0.5))
            for index in posting[:having]:
                tf = self.docs[index][term]
                norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.lengths[index] / avg))
                result[index] += idf * norm
        return result


class Renames:
    """Every rename of a history, to find the earlier names of a path at a given moment."""

    def __init__(self, commits: Iterable[dict[str, Any]]) -> None:
        self._into: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for commit in commits:
            for old, new in commit.get("renames") or ():
                self._into[new].append((int(commit["idx"]), old))

    def earlier_names(self, path: str, moment: int) -> list[str]:
        """Names the file at ``path`` had before, through renames at history indexes below
        ``moment``, most recent first."""
        names: list[str] = []
        seen = {path}
        current, bound = path, moment
        while True:
            entries = self._into.get(current, [])
            at = bisect.bisect_left(entries, (bound, "")) - 1
            if at < 0:
                return names
            bound, current = entries[at]
            if current in seen:
                return names
            seen.add(current)
            names.append(current)


Ranker = Callable[[str, Sequence[str], int | None, int], list[int]]


def make_rankers(
    memories: Sequence[MemoryRecord], renames: Renames | None = None
) -> dict[str, Ranker]:
    """Every README baseline over ``memories`` (oldest first): ``ranker(prompt, touched,
    visible, moment)``."""
    file_counts: Counter[str] = Counter()
    by_file: dict[str, list[int]] = defaultdict(list)
    for index, memory in enumerate(memories):
        file_counts.update(memory.files)
        for path in memory.files:
            by_file[path].append(index)
    bm25 = BM25(memories)

    def limit(visible: int | None) -> int:
        return len(memories) if visible is None else min(visible, len(memories))

    def recent(prompt: str, touched: Sequence[str], visible: int | None, moment: int):
        return sorted(range(limit(visible)), key=lambda i: -memories[i].ts)[:10]

    def use_count(prompt: str, touched: Sequence[str], visible: int | None, moment: int):
        # counts over every memory: the README's figure; only used on the cut's memories
        return sorted(
            range(limit(visible)),
            key=lambda i: -max((file_counts[f] for f in memories[i].files), default=0),
        )[:10]

    def sharing(paths: Iterable[str], visible: int | None) -> set[int]:
        bound = limit(visible)
        found: set[int] = set()
        for path in paths:
            found.update(i for i in by_file.get(path, ()) if i < bound)
        return found

    def sharing_newest(prompt: str, touched: Sequence[str], visible: int | None, moment: int):
        return sorted(sharing(touched, visible), key=lambda i: -memories[i].ts)[:10]

    def text_only(prompt: str, touched: Sequence[str], visible: int | None, moment: int):
        scores = bm25.scores(prompt, visible)
        return sorted(scores, key=lambda i: (-scores[i], -memories[i].ts))[:10]

    def shared_first(prompt: str, shared: set[int], visible: int | None) -> list[int]:
        scores = bm25.scores(prompt, visible)
        return sorted(
            set(scores) | shared,
            key=lambda i: (i not in shared, -scores.get(i, 0.0), -memories[i].ts),
        )[:10]

    def sharing_first(prompt: str, touched: Sequence[str], visible: int | None, moment: int):
        return shared_first(prompt, sharing(touched, visible), visible)

    rankers: dict[str, Ranker] = {
        "3 most recent memories": recent,
        'files most often changed ("use count")': use_count,
        "memories sharing a touched file, newest first": sharing_newest,
        "BM25 (Okapi) on summary+details, prompt as query": text_only,
        "BM25, memories sharing a touched file first": sharing_first,
    }
    if renames is not None:

        def renames_followed(
            prompt: str, touched: Sequence[str], visible: int | None, moment: int
        ) -> list[int]:
            # a memory names its files as of its commit: each touched path's earlier names,
            # through the renames made before the moment, find it
            paths = [name for p in touched for name in (p, *renames.earlier_names(p, moment))]
            return shared_first(prompt, sharing(paths, visible), visible)

        rankers["the same, renames followed"] = renames_followed
    return rankers
