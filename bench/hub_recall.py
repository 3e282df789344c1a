"""CPU per recall on a real history's hub files, in this process, on a store kept by
``bench.real_bench --keep DIR``: one line of JSON per run, to compare two trees alternately
(run it from each, ``PYTHONPATH`` choosing the tree).

A fresh engine, a warm-up of the first tasks, then every ``--step``-th task not on a hub file
and every task touching a hub file (a file named by ``--hub`` memories or more) once, then the
hub tasks again (an editor reopening the file): thread CPU per recall, medians, and the mean
wall ms of each stage (``RecallResult.timings_ms``) over the first pass.

    python -m bench.hub_recall --keep DIR [--history networkmanager] [--step 8] [--hub 700]
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


def main() -> None:
    """Parse the options and print one run's figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True, help="folder a --keep run built")
    parser.add_argument("--history", default="networkmanager", help="history kept there")
    parser.add_argument("--step", type=int, default=8, help="every n-th other task")
    parser.add_argument("--hub", type=int, default=700, help="memories naming a hub file")
    args = parser.parse_args()
    if not (args.keep / args.history / ".tether").is_dir():
        parser.error(f"--keep {args.keep}: no kept store of {args.history} there")
    if args.step < 1 or args.hub < 1:
        parser.error("--step and --hub must be at least 1")
    print(json.dumps(measure(args.keep, args.history, args.step, args.hub)))


if __name__ == "__main__":
    main()
