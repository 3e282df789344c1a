"""Try a ranking feature offline: reorder the candidates ``bench.quality --tune --dump`` wrote.

The dump holds, for each pre-cut task, the shipped engine's best candidates with the signals
that scored them (their sum is the engine's score) and which are relevant. This adds
``strength * feature`` to each score, reorders, and prints each history's pre-cut hit@3
against the engine's, with the keep rule of the quality sections of docs/benchmarks.md: kept
only if the mean of the histories rises and none falls by more than 0.01. The features
(:mod:`bench.quality_features`) read the memories' texts and files and the tasks from the
history files of the data folder (a memory's id is its commit's, as ``bench.quality``
imports them). A feature can only reorder the dumped candidates: a relevant memory past the
dump's depth stays a miss, so an engine pass (``--variant``) confirms what this finds.

``--misses HISTORY`` prints some of that history's misses at 3: the task, the memories ranked
above the relevant one with their signals, and the relevant one.

    python -m bench.quality_offline DUMP... [--feature NAME] [--strength S ...]
    python -m bench.quality_offline DUMP... --misses rdma-core [--count 6]
    python -m bench.quality_offline DUMP... --reach
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.quality_features import FEATURES, words

KEEP_DROP = 0.01
"""The keep rule's largest fall on any one history."""


class History:
    """One dataset's commits (the memories) and tasks, with each memory's words kept."""

    def __init__(self, folder: Path) -> None:
        """Read ``folder``'s ``commits.jsonl`` and ``tasks.jsonl``."""
        self.name = folder.name
        self.commits = [json.loads(line) for line in _lines(folder / "commits.jsonl")]
        self.tasks = {t["task_sha"]: t for t in map(json.loads, _lines(folder / "tasks.jsonl"))}
        self.by_id: dict[str, int] = {}
        self.file_mems: dict[str, list[int]] = defaultdict(list)
        self._df: dict[str, int] = defaultdict(int)
        for commit in self.commits:
            self.by_id.setdefault(commit["sha"][:8], commit["idx"])
            for path in commit["files"]:
                self.file_mems[path].append(commit["idx"])
        self._words: dict[int, list[str]] = {}

    def words(self, idx: int) -> list[str]:
        """The word tokens of memory ``idx``'s summary then details."""
        found = self._words.get(idx)
        if found is None:
            commit = self.commits[idx]
            found = self._words[idx] = words(commit["subject"]) + words(commit["body"])
        return found

    def idf(self, word: str) -> float:
        """log(N / (1 + memories holding ``word``)) over the whole history."""
        if not self._df:
            for idx in range(len(self.commits)):
                for w in set(self.words(idx)):
                    self._df[w] += 1
        return math.log(len(self.commits) / (1 + self._df.get(word, 0)))


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@dataclass
class Task:
    """One dumped task: its candidates (history indexes, signals) in the engine's order."""

    history: str
    task: dict[str, Any]
    idx: list[int]
    signals: list[dict[str, float]]
    base: Any  # numpy (n,): the engine's scores
    relevant: Any  # numpy bool (n,)
    complete: bool = False
    """The line holds every candidate the engine found (``--dump-depth`` large enough)."""


def read_dump(paths: Sequence[Path], data: Path) -> tuple[list[Task], dict[str, History]]:
    """The dumped tasks with the histories they come from (read from ``data``)."""
    import numpy as np

    histories: dict[str, History] = {}
    tasks: list[Task] = []
    for path in paths:
        for number, line in enumerate(_lines(path), start=1):
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
                name, sha, candidates = row["history"], row["task"], row["candidates"]
            except (ValueError, KeyError, TypeError):
                raise SystemExit(f"{where}: not a line of bench.quality --dump") from None
            if name not in histories:
                folder = data / name
                if not (folder / "commits.jsonl").exists():
                    raise SystemExit(f"{where}: no history {name!r} in {data}; pass --data")
                histories[name] = History(folder)
            history = histories[name]
            if sha not in history.tasks:
                raise SystemExit(f"{where}: task {sha} is not in {name}'s tasks.jsonl")
            missing = [c["id"] for c in candidates if c["id"] not in history.by_id]
            if missing:
                raise SystemExit(f"{where}: memory {missing[0]} is no commit of {name}")
            tasks.append(
                Task(
                    name,
                    history.tasks[sha],
                    [history.by_id[c["id"]] for c in candidates],
                    [c["signals"] for c in candidates],
                    _as_placed([sum(c["signals"].values()) for c in candidates]),
                    np.array([bool(c["relevant"]) for c in candidates], dtype=bool),
                    bool(row.get("complete", False)),
                )
            )
    return tasks, histories


def _as_placed(scores: list[float]) -> Any:
    """The candidates' scores, each lowered to the lowest before it: the engine's order is
    the dump's, and past the spread over files (``recall.ranking.diversify``) a candidate may
    score above one placed before it."""
    import numpy as np

    return np.minimum.accumulate(np.array(scores, dtype=float)) if scores else np.zeros(0)


SHOWN = 3
"""Ranks that count as a hit (hit@3)."""

SEEN = 50
"""Candidates the ranker's reorderings were studied on (the default dump depth)."""

REACH_CLASSES = (
    "top 3",
    "4-50",
    "past 50, on a touched file",
    "past 50, co-change",
    "past 50, text or semantic only",
    "no channel found it",
    "past the dump's depth",
)


def reach(task: Task) -> str:
    """Where a task's relevant memory is among its candidates (one of ``REACH_CLASSES``):
    by its best rank, and past ``SEEN`` by the channel that found it (the file channel first,
    then co-change, else the text or semantic ones); when it was not dumped, whether the
    line holds every candidate (then no channel found it) or stops short."""
    found = [k for k, relevant in enumerate(task.relevant) if relevant]
    if not found:
        return REACH_CLASSES[5] if task.complete else REACH_CLASSES[6]
    at = found[0]
    if at < SHOWN:
        return REACH_CLASSES[0]
    if at < SEEN:
        return REACH_CLASSES[1]
    signals = task.signals[at]
    if "file" in signals:
        return REACH_CLASSES[2]
    return REACH_CLASSES[3] if "cochange" in signals else REACH_CLASSES[4]


def print_reach(tasks: Sequence[Task]) -> None:
    """Count, per history, the tasks of each class of :func:`reach`."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(REACH_CLASSES, 0))
    for task in tasks:
        counts[task.history][reach(task)] += 1
    print("where the relevant memory is (tasks): " + ", ".join(sorted(counts)))
    for name in REACH_CLASSES:
        print(f"  {name:<32} " + " ".join(f"{counts[h][name]:>5}" for h in sorted(counts)))


GATHERING = REACH_CLASSES[3:6]
"""Where a relevant memory is when only wider candidate gathering could lift it: on no
touched file and past ``SEEN``, or found by no channel."""


def print_gathering_ceiling(tasks: Sequence[Task]) -> None:
    """Per history: the tasks of the ``GATHERING`` classes, and how many of them have their
    third candidate scoring no more than the best any candidate on no touched file scored
    in that history (a generous bound on what gathering more such memories could lift)."""
    best: dict[str, float] = defaultdict(float)
    for task in tasks:
        for k, signals in enumerate(task.signals):
            if "file" not in signals:
                best[task.history] = max(best[task.history], float(task.base[k]))
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for task in tasks:
        if reach(task) in GATHERING:
            counts[task.history][0] += 1
            third = float(task.base[SHOWN - 1]) if len(task.base) >= SHOWN else 0.0
            counts[task.history][1] += third <= best[task.history]
    print("gathering misses (on no touched file, past 50 or not found), and of them the tasks")
    print("whose third scores at most the history's best score off the touched files:")
    for name in sorted(best):
        found, within = counts[name]
        print(f"  {name:<16} {found:>4} {within:>4}  (best off the files {best[name]:.3f})")


def hit3(tasks: Sequence[Task], extra: Sequence[Any] | None = None, strength: float = 0.0):
    """Pre-cut hit@3 per history, the candidates ordered by score (plus ``strength`` times
    ``extra``, one array per task); equal scores keep the engine's order."""
    import numpy as np

    found: dict[str, list[bool]] = defaultdict(list)
    for n, task in enumerate(tasks):
        score = task.base if extra is None else task.base + strength * extra[n]
        order = np.argsort(-score, kind="stable")
        found[task.history].append(bool(task.relevant[order[:3]].any()))
    return {name: sum(hits) / len(hits) for name, hits in sorted(found.items())}


def compare(tasks: Sequence[Task], extra: Sequence[Any], strengths: Sequence[float]):
    """(strength, change of each history's hit@3, change of the mean, kept by the rule) for
    each strength."""
    before = hit3(tasks)
    mean = sum(before.values()) / len(before)
    rows = []
    for strength in strengths:
        after = hit3(tasks, extra, strength)
        change = {name: after[name] - before[name] for name in before}
        moved = sum(after.values()) / len(after) - mean
        kept = moved > 1e-9 and min(change.values()) >= -KEEP_DROP - 1e-9
        rows.append((strength, change, moved, kept))
    return rows


def leave_one_out(tasks: Sequence[Task], extra: Sequence[Any], strengths: Sequence[float]):
    """For each history: the strength (0 among them) with the best mean change on the other
    histories that lowers none of them by more than ``KEEP_DROP``, and the held-out
    history's change under it, as {history: (strength, change)}; empty with fewer than two
    histories (nothing to choose on)."""
    before = hit3(tasks)
    if len(before) < 2:
        return {}
    after = {s: hit3(tasks, extra, s) for s in strengths}
    after[0.0] = before
    chosen = {}
    for held in before:
        others = [name for name in before if name != held]
        best = (0.0, 0.0)
        for strength, figures in after.items():
            change = [figures[name] - before[name] for name in others]
            mean = sum(change) / len(change)
            if min(change) >= -KEEP_DROP - 1e-9 and mean > best[1] + 1e-9:
                best = (strength, mean)
        chosen[held] = (best[0], after[best[0]][held] - before[held])
    return chosen


def print_misses(tasks: Sequence[Task], history: History, count: int, seed: int) -> None:
    """Print ``count`` of ``history``'s misses at 3 whose relevant memory was dumped."""
    misses = [
        t
        for t in tasks
        if t.history == history.name and t.relevant.any() and not t.relevant[:3].any()
    ]
    print(f"{history.name}: {len(misses)} misses at 3 with the relevant memory among the dumped")
    for task in random.Random(seed).sample(misses, min(count, len(misses))):
        at = int(task.relevant.argmax())
        print(f"\ntask: {task.task['prompt']!r} touching {task.task['touched'][:4]}, rank {at + 1}")
        for k in [*range(3), at]:
            commit = history.commits[task.idx[k]]
            mark = "relevant" if task.relevant[k] else f"#{k + 1}"
            shown = ", ".join(f"{s}={v:.3f}" for s, v in task.signals[k].items() if "rank" not in s)
            files = len(commit["files"])
            print(f"  {mark} {commit['date'][:10]} {commit['subject'][:80]!r} ({files} files)")
            print(f"    {shown}")


def main(argv: list[str] | None = None) -> int:
    """Score a feature (or all of them) offline, or print misses."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality_offline")
    default = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "data"
    parser.add_argument("dumps", nargs="+", type=Path, help="files bench.quality --dump wrote")
    parser.add_argument("--data", type=Path, default=default, help="folder of datasets")
    parser.add_argument("--feature", action="append", choices=sorted(FEATURES), default=[])
    parser.add_argument("--strength", action="append", type=float, default=[])
    parser.add_argument("--misses", metavar="HISTORY", help="print misses of this history")
    parser.add_argument("--count", type=int, default=6, help="with --misses: how many")
    parser.add_argument("--seed", type=int, default=1, help="with --misses: which ones")
    parser.add_argument(
        "--reach",
        action="store_true",
        help="count where the relevant memory is (a dump of bench.quality --dump-depth 5000 "
        "tells the candidates past 50 from the memories no channel found)",
    )
    args = parser.parse_args(argv)
    for path in args.dumps:
        if not path.is_file():
            print(
                f"no dump file {path}; write one with bench.quality --tune --dump", file=sys.stderr
            )
            return 2
    tasks, histories = read_dump(args.dumps, args.data)
    if args.misses:
        if args.misses not in histories:
            print(f"--misses {args.misses}: the dumps hold {sorted(histories)}", file=sys.stderr)
            return 2
        print_misses(tasks, histories[args.misses], args.count, args.seed)
        return 0
    if args.reach:
        print_reach(tasks)
        print_gathering_ceiling(tasks)
        return 0
    base = hit3(tasks)
    print("engine: " + ", ".join(f"{n} {v:.3f}" for n, v in base.items()))
    print(f"        mean {sum(base.values()) / len(base):.4f} ({len(tasks)} tasks)")
    strengths = args.strength or [0.005, 0.01, 0.02, 0.04]
    for name in args.feature or sorted(FEATURES):
        extra = [FEATURES[name](histories[t.history], t) for t in tasks]
        print(f"\n{name} (change of pre-cut hit@3: {', '.join(base)}; mean)")
        for strength, change, moved, kept in compare(tasks, extra, strengths):
            cells = " ".join(f"{v:+.3f}" for v in change.values())
            rule = "  kept by the rule" if kept else ""
            print(f"  {strength:<7g} {cells}  mean {moved:+.4f}{rule}")
        held = leave_one_out(tasks, extra, strengths)
        cells = ", ".join(f"{n} {c:+.3f} ({s:g})" for n, (s, c) in held.items())
        if held:
            print(f"  leave one history out (strength chosen on the others): {cells}")
        else:
            print("  leave one history out: needs the dumps of two histories or more")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
