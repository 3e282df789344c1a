"""CPU per recall on a real history's hub files, in this process, on a store kept by
``bench.real_bench --keep DIR``: one line of JSON per run, to compare two trees alternately
(run it from each, ``PYTHONPATH`` choosing the tree).

A fresh engine, a warm-up of the first tasks, then every ``--step``-th task not on a hub file
and every task touching a hub file (a file named by ``--hub`` memories or more) once, then the
hub tasks again (an editor reopening the file): thread CPU per recall, medians, and the mean
wall ms of each stage (``RecallResult.timings_ms``) over the first pass.

    python -m bench.hub_recall --keep DIR [--history networkmanager] [--step 8] [--hub 700]

``--first N``: instead, the N files most memories name that exist in the working tree, each
recalled once by a fresh engine as an editor's open asks it (an open touch, no prompt, limit
6) after that engine's first recall of another file, so the store and genome are open but
nothing of the hub file is kept: what a language server's first open of the file and a hook
process pay. Thread CPU and stage ms per file, medians of ``--rounds``.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import time
from pathlib import Path

from bench import real_bench

WARMUP = 20


def measure(work: Path, history: str, step: int, hub_size: int) -> dict[str, object]:
    """One run on the store kept under ``work`` (see the module docstring)."""
    h = real_bench.build(real_bench._default_data() / history, work, print, reuse=True)
    os.environ.update({k: h.env[k] for k in ("TETHER_HOME", "TETHER_NOW")})
    with sqlite3.connect(h.repo / ".tether" / "index.db") as conn:
        counts = dict(conn.execute("SELECT path, count(*) FROM memory_files GROUP BY path"))
    hub = {
        i for i, t in enumerate(h.tasks) if any(counts.get(p, 0) >= hub_size for p in t["touched"])
    }
    ctx, recaller = real_bench._engine(h)
    queries = [(i, real_bench._query(recaller, t)) for i, t in enumerate(h.tasks)]
    for _, query in queries[:WARMUP]:
        recaller.recall(query)
    sample = [(i, q) for i, q in queries if i % step == 0 or i in hub]
    other: list[float] = []
    on_hub: list[float] = []
    stages: dict[str, float] = {}
    for i, query in sample:
        used = time.thread_time()
        result = recaller.recall(query)
        (on_hub if i in hub else other).append((time.thread_time() - used) * 1000)
        for name, value in result.timings_ms.items():
            stages[name] = stages.get(name, 0.0) + value
    again: list[float] = []
    for i, query in sample:
        if i in hub:
            used = time.thread_time()
            recaller.recall(query)
            again.append((time.thread_time() - used) * 1000)
    ctx.close()
    return {
        "load": round(os.getloadavg()[0], 1),
        "other tasks": len(other),
        "hub tasks": len(on_hub),
        "other CPU p50": round(statistics.median(other), 1),
        "hub CPU p50": round(statistics.median(on_hub), 1),
        "hub CPU mean": round(statistics.mean(on_hub), 1),
        "hub again CPU p50": round(statistics.median(again), 1),
        "stages": {name: round(value / len(sample), 2) for name, value in stages.items()},
    }


def first_recalls(work: Path, history: str, files: int, rounds: int) -> dict[str, object]:
    """A fresh engine's first recall of each of the ``files`` most-named files (see the
    module docstring), ``rounds`` times each."""
    from recall.ranking.query import RecallQuery, Touch

    h = real_bench.build(real_bench._default_data() / history, work, print, reuse=True)
    os.environ.update({k: h.env[k] for k in ("TETHER_HOME", "TETHER_NOW")})
    with sqlite3.connect(h.repo / ".tether" / "index.db") as conn:
        named = conn.execute(
            "SELECT path FROM memory_files GROUP BY path ORDER BY count(*) DESC, path"
        ).fetchall()
    hubs = [path for (path,) in named if (h.repo / path).is_file()][:files]
    other = RecallQuery((Touch("README.md", "open"),), None, limit=6)
    cpu: dict[str, list[float]] = {path: [] for path in hubs}
    stages: dict[str, dict[str, list[float]]] = {path: {} for path in hubs}
    for _ in range(rounds):
        for path in hubs:
            ctx, recaller = real_bench._engine(h)
            try:
                recaller.recall(other)
                used = time.thread_time()
                result = recaller.recall(RecallQuery((Touch(path, "open"),), None, limit=6))
                cpu[path].append((time.thread_time() - used) * 1000)
            finally:
                ctx.close()
            for name, value in result.timings_ms.items():
                stages[path].setdefault(name, []).append(value)
    return {
        "load": round(os.getloadavg()[0], 1),
        "first recall CPU p50": {path: round(statistics.median(v), 1) for path, v in cpu.items()},
        "mean of the medians": round(statistics.mean(map(statistics.median, cpu.values())), 1),
        "stages p50": {
            path: {name: round(statistics.median(v), 1) for name, v in found.items()}
            for path, found in stages.items()
        },
    }


def main() -> None:
    """Parse the options and print one run's figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True, help="folder a --keep run built")
    parser.add_argument("--history", default="networkmanager", help="history kept there")
    parser.add_argument("--step", type=int, default=8, help="every n-th other task")
    parser.add_argument("--hub", type=int, default=700, help="memories naming a hub file")
    parser.add_argument("--first", type=int, help="a fresh engine's first recall of N files")
    parser.add_argument("--rounds", type=int, default=5, help="with --first: runs per file")
    args = parser.parse_args()
    if not (args.keep / args.history / ".tether").is_dir():
        parser.error(f"--keep {args.keep}: no kept store of {args.history} there")
    if args.step < 1 or args.hub < 1 or args.rounds < 1:
        parser.error("--step, --hub and --rounds must be at least 1")
    if args.first is not None:
        if args.first < 1:
            parser.error(f"--first {args.first}: give at least 1 file")
        print(json.dumps(first_recalls(args.keep, args.history, args.first, args.rounds)))
        return
    print(json.dumps(measure(args.keep, args.history, args.step, args.hub)))


if __name__ == "__main__":
    main()
