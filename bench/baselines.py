"""The baseline rankers of the recall-quality data's README, computed on the same tasks.

Each ranker takes a task (prompt, touched files) and returns memory indexes, best first.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

TOKEN = re.compile(r"[a-z0-9]{2,}")
K1 = 1.2  # Okapi defaults
B = 0.75


@dataclass(frozen=True)
class MemoryRecord:
    """One memory of the benchmark: a commit before the cut."""

    key: str
    summary: str
    details: str
    files: tuple[str, ...]
    ts: int


def tokens(text: str) -> list[str]:
    """Lowercase ``[a-z0-9]{2,}`` tokens, as the README's baselines used."""
    return TOKEN.findall(text.lower())


class BM25:
    """Okapi BM25 over summary + details."""

    def __init__(self, memories: Sequence[MemoryRecord]) -> None:
        self.docs = [Counter(tokens(f"{m.summary}\n{m.details}")) for m in memories]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(1, len(self.lengths))
        df: Counter[str] = Counter()
        for doc in self.docs:
            df.update(doc.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.postings: dict[str, list[int]] = defaultdict(list)
        for index, doc in enumerate(self.docs):
            for term in doc:
                self.postings[term].append(index)

    def scores(self, query: str) -> dict[int, float]:
        """BM25 score of every memory containing at least one query token."""
        result: dict[int, float] = defaultdict(float)
        for term in set(tokens(query)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for index in self.postings[term]:
                tf = self.docs[index][term]
                norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.lengths[index] / self.avg))
                result[index] += idf * norm
        return result


Ranker = Callable[[str, Sequence[str]], list[int]]


def make_rankers(
    memories: Sequence[MemoryRecord], renamed_to: Callable[[str], str | None] | None = None
) -> dict[str, Ranker]:
    """Every README baseline over ``memories``."""
    newest = sorted(range(len(memories)), key=lambda i: -memories[i].ts)
    file_counts: Counter[str] = Counter()
    by_file: dict[str, list[int]] = defaultdict(list)
    for index, memory in enumerate(memories):
        file_counts.update(memory.files)
        for path in memory.files:
            by_file[path].append(index)
    use = sorted(
        range(len(memories)),
        key=lambda i: -max((file_counts[f] for f in memories[i].files), default=0),
    )
    bm25 = BM25(memories)

    def recent(prompt: str, touched: Sequence[str]) -> list[int]:
        return newest[:10]

    def use_count(prompt: str, touched: Sequence[str]) -> list[int]:
        return use[:10]

    def sharing(touched: Sequence[str]) -> set[int]:
        found: set[int] = set()
        for path in touched:
            found.update(by_file.get(path, ()))
        return found

    def sharing_newest(prompt: str, touched: Sequence[str]) -> list[int]:
        return sorted(sharing(touched), key=lambda i: -memories[i].ts)[:10]

    def text_only(prompt: str, touched: Sequence[str]) -> list[int]:
        scores = bm25.scores(prompt)
        return sorted(scores, key=lambda i: (-scores[i], -memories[i].ts))[:10]

    def sharing_first(touched_files: Sequence[str], prompt: str) -> list[int]:
        scores = bm25.scores(prompt)
        shared = sharing(touched_files)
        return sorted(
            set(scores) | shared,
            key=lambda i: (i not in shared, -scores.get(i, 0.0), -memories[i].ts),
        )[:10]

    rankers: dict[str, Ranker] = {
        "3 most recent memories": recent,
        'files most often changed ("use count")': use_count,
        "memories sharing a touched file, newest first": sharing_newest,
        "BM25 (Okapi) on summary+details, prompt as query": text_only,
        "BM25, memories sharing a touched file first": lambda p, t: sharing_first(t, p),
    }
    if renamed_to is not None:

        def followed(paths: Sequence[str]) -> list[str]:
            out = list(paths)
            for path in paths:
                target = renamed_to(path)
                if target:
                    out.append(target)
            return out

        # memories keep their paths as of their commit; follow renames from there to the cut
        by_file_followed: dict[str, list[int]] = defaultdict(list)
        for index, memory in enumerate(memories):
            for path in followed(list(memory.files)):
                by_file_followed[path].append(index)

        def renames_followed(prompt: str, touched: Sequence[str]) -> list[int]:
            scores = bm25.scores(prompt)
            shared: set[int] = set()
            for path in touched:
                shared.update(by_file_followed.get(path, ()))
            return sorted(
                set(scores) | shared,
                key=lambda i: (i not in shared, -scores.get(i, 0.0), -memories[i].ts),
            )[:10]

        rankers["the same, renames followed"] = renames_followed
    return rankers
