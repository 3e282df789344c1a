"""Fit the learned ranker's weights (``learned_weights.json``) on dumped recall candidates.

``python -m bench.quality --tune --dump FILE`` writes, for each pre-cut task of the fix
histories, the best candidates of the hand-set ranker with their signals and whether each is
relevant. This script fits one weight per signal (a linear ranker, numpy only) by a pairwise
logistic loss: each relevant candidate against each irrelevant one among the first
``PAIR_DEPTH`` of the hand-set order, every task weighing the same, with a ridge pulling each
weight towards 1 (the hand-set scale) and weights kept non-negative. Newton steps from the
hand-set weights, a fixed grid of strengths: the same dump gives the same weights.

The strength and ridge are chosen by leave-one-history-out on the histories fitted on; the
report then scores each history with weights fitted on the others (chosen the same way on
those), beside the hand-set order of the same candidates.

    python -m recall.ranking.fit_learned DUMP... [--write]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recall.ranking.learned import WEIGHTS_FILE

LEARNED: tuple[str, ...] = (
    "file",
    "file_rank",
    "cochange",
    "cochange_rank",
    "words",
    "words_rank",
    "trigram",
    "trigram_rank",
    "semantic",
    "semantic_rank",
    "module",
    "recency",
    "blast",
)
"""Signals whose weight is fitted; the others (pin, feedback) keep weight 1: the histories
hold none of them."""

PAIR_DEPTH = 10
"""Irrelevant candidates a relevant one is paired with: those the hand-set order ranks
first (the ones a hit@3 has to beat)."""

SCALES = (50.0, 100.0)
"""Strengths tried (a score difference of 0.02 is then 1 or 2 logits)."""

RIDGES = (0.1, 1.0, 10.0)
"""Ridge strengths tried (per task, towards weight 1)."""

NEWTON_STEPS = 40


@dataclass
class Task:
    """One task's candidates: raw signals (rows: candidates in hand-set order), relevance."""

    history: str
    learned: Any  # numpy (n, len(LEARNED))
    fixed: Any  # numpy (n,): the signals kept at weight 1, summed
    relevant: Any  # numpy bool (n,)


def read_dump(paths: Sequence[Path]) -> list[Task]:
    """The tasks of the dump files (a task written twice counts once)."""
    import numpy as np

    tasks: list[Task] = []
    seen: set[tuple[str, str]] = set()
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                row = json.loads(line)
                key = (str(row["history"]), str(row["task"]))
                candidates = row["candidates"]
            except (ValueError, KeyError, TypeError):
                raise SystemExit(f"{path}:{number}: not a line of bench.quality --dump") from None
            if key in seen or not candidates:
                continue
            seen.add(key)
            learned = np.array(
                [[c["signals"].get(name, 0.0) for name in LEARNED] for c in candidates]
            )
            fixed = np.array(
                [sum(v for k, v in c["signals"].items() if k not in LEARNED) for c in candidates]
            )
            relevant = np.array([bool(c["relevant"]) for c in candidates])
            tasks.append(Task(key[0], learned, fixed, relevant))
    return tasks


def _pairs(tasks: Sequence[Task]) -> tuple[Any, Any]:
    """(differences relevant - irrelevant, weight of each pair): each task weighs 1."""
    import numpy as np

    diffs: list[Any] = []
    weights: list[Any] = []
    for task in tasks:
        good = np.flatnonzero(task.relevant)
        bad = np.flatnonzero(~task.relevant)[:PAIR_DEPTH]
        if not len(good) or not len(bad):
            continue
        d = (task.learned[good][:, None, :] - task.learned[bad][None, :, :]).reshape(
            -1, len(LEARNED)
        )
        f = (task.fixed[good][:, None] - task.fixed[bad][None, :]).reshape(-1)
        diffs.append(np.column_stack([d, f]))
        weights.append(np.full(len(d), 1.0 / len(d)))
    if not diffs:
        return np.zeros((0, len(LEARNED) + 1)), np.zeros(0)
    return np.vstack(diffs), np.concatenate(weights)


def fit(tasks: Sequence[Task], scale: float, ridge: float) -> dict[str, float]:
    """Weights of the LEARNED signals minimising the pairwise logistic loss plus the ridge."""
    import numpy as np

    diffs, pair_weights = _pairs(tasks)
    count = max(1, len({id(t) for t in tasks}))
    w = np.ones(len(LEARNED))
    if not len(diffs):
        return dict(zip(LEARNED, w.tolist(), strict=True))
    d, fixed = diffs[:, :-1], diffs[:, -1]
    lam = ridge * count
    for _ in range(NEWTON_STEPS):
        margin = scale * (d @ w + fixed)
        p = 0.5 * (1.0 + np.tanh(-0.5 * margin))  # sigmoid(-margin), no overflow
        grad = -scale * (d.T @ (pair_weights * p)) + 2.0 * lam * (w - 1.0)
        hess = (scale**2) * (d.T * (pair_weights * p * (1.0 - p))) @ d
        hess += 2.0 * lam * np.eye(len(LEARNED))
        step = np.linalg.solve(hess, grad)
        w = np.maximum(0.0, w - step)
        if float(np.abs(step).max()) < 1e-9:
            break
    return {name: round(float(v), 6) for name, v in zip(LEARNED, w, strict=True)}


def hit3(tasks: Sequence[Task], weights: dict[str, float] | None) -> float:
    """Share of ``tasks`` with a relevant candidate in the first three when reordered by
    ``weights`` (None: the hand-set order, as dumped); ties keep the hand-set order."""
    import numpy as np

    if not tasks:
        return 0.0
    hits = 0
    for task in tasks:
        if weights is None:
            order = np.arange(len(task.relevant))
        else:
            w = np.array([weights[name] for name in LEARNED])
            score = task.learned @ w + task.fixed
            order = np.argsort(-score, kind="stable")
        hits += bool(task.relevant[order[:3]].any())
    return hits / len(tasks)


def choose(tasks: Sequence[Task]) -> tuple[float, float]:
    """(scale, ridge) with the best mean leave-one-history-out hit@3 over ``tasks``'
    histories (the first of the grid on a tie); on one history, its own hit@3."""
    histories = sorted({t.history for t in tasks})
    best: tuple[float, float, float] | None = None
    for scale in SCALES:
        for ridge in RIDGES:
            if len(histories) > 1:
                scores = [
                    hit3(
                        [t for t in tasks if t.history == held],
                        fit([t for t in tasks if t.history != held], scale, ridge),
                    )
                    for held in histories
                ]
            else:
                scores = [hit3(tasks, fit(tasks, scale, ridge))]
            mean = sum(scores) / len(scores)
            if best is None or mean > best[0] + 1e-12:
                best = (mean, scale, ridge)
    assert best is not None
    return best[1], best[2]


def leave_one_out(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """Per history: hit@3 of the hand-set order and of weights fitted (strength chosen) on
    the other histories alone."""
    rows = []
    for held in sorted({t.history for t in tasks}):
        train = [t for t in tasks if t.history != held]
        test = [t for t in tasks if t.history == held]
        scale, ridge = choose(train)
        weights = fit(train, scale, ridge)
        rows.append(
            {
                "history": held,
                "tasks": len(test),
                "hand_set": round(hit3(test, None), 4),
                "learned": round(hit3(test, weights), 4),
                "scale": scale,
                "ridge": ridge,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    """Report leave-one-history-out; with --write, fit on every history and write the file."""
    parser = argparse.ArgumentParser(prog="python -m recall.ranking.fit_learned")
    parser.add_argument("dumps", nargs="+", type=Path, help="files of bench.quality --dump")
    parser.add_argument("--write", action="store_true", help=f"write {WEIGHTS_FILE.name}")
    parser.add_argument("--out", type=Path, default=WEIGHTS_FILE, help="where --write writes")
    args = parser.parse_args(argv)
    tasks = read_dump(args.dumps)
    if not tasks:
        print("no tasks in the dump files", file=sys.stderr)
        return 2
    rows = leave_one_out(tasks)
    print("| held out | tasks | hand-set hit@3 | learned hit@3 | scale | ridge |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['history']} | {row['tasks']} | {row['hand_set']:.3f} | "
            f"{row['learned']:.3f} | {row['scale']:g} | {row['ridge']:g} |"
        )
    scale, ridge = choose(tasks)
    weights = fit(tasks, scale, ridge)
    print(f"\nfitted on all: scale {scale:g}, ridge {ridge:g}")
    print(json.dumps(weights, indent=1))
    if args.write:
        data = {
            "about": "learned weight of each recall signal; python -m recall.ranking.fit_learned",
            "scale": scale,
            "ridge": ridge,
            "tasks": len(tasks),
            "leave_one_history_out": rows,
            "weights": weights,
        }
        args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
