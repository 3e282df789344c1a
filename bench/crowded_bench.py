"""Recall on one file named by every memory of the store (issue 15's "100k memories on one
file"): how the cap on a file channel (``FILE_CANDIDATES_MAX``) holds the cost.

For each size, a git repository of two files is made, ``size`` generated memories
(``bench.synth.memories``) are imported in-process, all naming ``hub.c``, and the genome is
indexed. Then a fresh engine answers a first query, and after a warm-up three kinds of query
are timed, CPU and wall: the file alone, the file with a prompt, and the prompt alone (the
floor: no file channel). The receipt of a hit through the file says how many were ranked.

    python -m bench.crowded_bench [--sizes N ...] [--queries N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from bench import synth
from bench.table import median, percentile, print_command, print_table
from recall.genome import Genome
from recall.importer import import_lines
from recall.locations import project_location
from recall.ranking.engine import Recaller
from recall.ranking.query import RecallQuery, Touch
from recall.store import MemoryStore

SIZES = (20_000, 100_000)
QUICK_SIZES = (20_000,)
QUERIES = 30
HUB = "hub.c"
PROMPT = "retry the request with backoff"
KINDS = {
    "file": RecallQuery((Touch(HUB, "edit"),), ""),
    "file + prompt": RecallQuery((Touch(HUB, "edit"),), PROMPT),
    "prompt only (floor)": RecallQuery((), PROMPT),
}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def build(root: Path, size: int) -> float:
    """A repository whose ``size`` memories all name ``HUB``; the import's seconds."""
    root.mkdir(parents=True)
    _git(root, "init", "-q")
    (root / HUB).write_text("int hub;\n")
    (root / "other.c").write_text("int other;\n")
    _git(root, "add", ".")
    _git(
        root,
        "-c",
        "user.name=Bench",
        "-c",
        "user.email=bench@tether.invalid",
        "commit",
        "-qm",
        "init",
    )
    store = MemoryStore(project_location(root, create_at_cwd=True), notice=lambda m: None)
    records = []
    for record in synth.memories(size):
        record["files"] = [HUB]
        records.append(json.dumps(record))
    start = time.perf_counter()
    results = import_lines(store, records, lambda p: store.normalize_input(p, root), "bench")
    seconds = time.perf_counter() - start
    store.close()
    if sum(r.status == "created" for r in results) != size:
        raise RuntimeError(f"import of {size} memories lost some")
    return seconds


def measure(root: Path, queries: int) -> tuple[list[object], str]:
    """One row per query kind: CPU and wall p50 / p99, the first query's; a receipt seen."""
    store = MemoryStore(project_location(root, create_at_cwd=True), notice=lambda m: None)
    recaller = Recaller(
        [store], Genome.load(root, store.conn), cache_dir=store.location.base / "cache"
    )
    rows: list[object] = []
    receipt = ""
    for name, query in KINDS.items():
        first_cpu, first_wall = time.process_time(), time.perf_counter()
        result = recaller.recall(query)
        first = (time.process_time() - first_cpu, time.perf_counter() - first_wall)
        receipt = receipt or (result.hits[0].receipt if query.touches and result.hits else "")
        cpu, wall = [], []
        for _ in range(queries):
            tick_cpu, tick_wall = time.process_time(), time.perf_counter()
            recaller.recall(query)
            cpu.append((time.process_time() - tick_cpu) * 1000)
            wall.append((time.perf_counter() - tick_wall) * 1000)
        rows.append(
            [
                name,
                f"{median(cpu):.1f} / {percentile(cpu, 99):.1f} ms",
                f"{median(wall):.1f} / {percentile(wall, 99):.1f} ms",
                f"{first[0] * 1000:,.0f} / {first[1] * 1000:,.0f} ms",
            ]
        )
    store.close()
    return rows, receipt


def main(argv: list[str] | None = None) -> int:
    """Build each size, time the three query kinds, print the table and the command."""
    parser = argparse.ArgumentParser(prog="python -m bench.crowded_bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="20k only")
    parser.add_argument("--sizes", type=int, nargs="+", metavar="N", help="memories on the file")
    parser.add_argument("--queries", type=int, default=QUERIES, help="timed queries per kind")
    parser.add_argument("--keep", type=Path, help="build (or reuse) the stores under DIR")
    args = parser.parse_args(argv)
    sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    with tempfile.TemporaryDirectory(prefix="tether-crowded-") as scratch:
        base = args.keep or Path(scratch)
        table: list[list[object]] = []
        receipts: list[str] = []
        for size in sizes:
            root = base / f"one-file-{size}"
            built = "reused" if root.exists() else f"{build(root, size):.1f} s"
            rows, receipt = measure(root, args.queries)
            table += [[f"{size:,}", *row, built] for row in rows]
            receipts.append(f"{size:,}: {receipt}")
    print_table(
        "Recall on one file named by every memory (p50 / p99; first query CPU / wall)",
        ["memories", "query", "CPU", "wall", "first query", "import"],
        table,
    )
    print("\nreceipt of the first hit through the file: " + "; ".join(receipts))
    print_command()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
