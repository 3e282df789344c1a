"""Foundation benchmark: bulk import, single remember, no-change open, index size.

Each figure is printed next to a floor measured in the same run on the same machine:
an FTS5 trigram bulk insert of the same rows (import), a bare fsync'd file write (remember)
and a bare stat of every memory file (no-change open).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from bench import floors, synth
from bench.table import median, percentile, print_command, print_table
from recall.importer import import_lines
from recall.locations import project_location
from recall.store import MemoryStore


def _repo(root: Path) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _import(records: list[dict], repo: Path) -> tuple[float, MemoryStore]:
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda m: None)
    lines = [json.dumps(r) for r in records]
    start = time.perf_counter()
    results = import_lines(store, lines, lambda p: store.normalize_input(p, repo), "bench")
    elapsed = time.perf_counter() - start
    assert sum(r.status == "created" for r in results) == len(records), "import lost records"
    return elapsed, store


def _index_bytes(store: MemoryStore) -> int:
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = store.location.index_path
    return sum(os.path.getsize(f"{path}{s}") for s in ("", "-wal") if os.path.exists(f"{path}{s}"))


def _folder_bytes(store: MemoryStore) -> int:
    return sum(e.stat().st_size for e in os.scandir(store.folder.path))


IMPORT_RUNS = 3
"""Imports per size, each into a new folder with nothing deleted between (see
:func:`bench.floors.create_probe`): the median of three, since one run moves by a third from
one minute to the next on a shared machine."""


def bench_import(sizes: list[int], work: Path) -> dict[int, MemoryStore]:
    """Import ``sizes`` generated memories each, :data:`IMPORT_RUNS` times; print the median
    memories/s against the floors of the same runs (trigram insert, bare file writes)."""
    rows = []
    stores: dict[int, MemoryStore] = {}
    for size in sizes:
        records = list(synth.memories(size))
        rows_ = [(r["summary"], r["details"]) for r in records]
        runs: list[tuple[float, float, float, float]] = []
        for run in range(IMPORT_RUNS):
            floor = floors.trigram_insert(rows_, work / f"floor-{size}-{run}.db").wall
            probe_us = floors.create_probe(work / f"probe-{size}-{run}")
            elapsed, store = _import(records, _repo(work / f"repo-{size}-{run}"))
            # same run, same disk
            files_floor = floors.file_writes(store.folder.path, work / f"files-{size}-{run}").wall
            runs.append((elapsed, floor, files_floor, probe_us))
            if size in stores:
                stores[size].close()
            stores[size] = store
        store = stores[size]
        elapsed, floor, files_floor = (median([r[i] for r in runs]) for i in range(3))
        rows.append(
            (
                f"{size:,}",
                f"{size / elapsed:,.0f}",
                f"{size / floor:,.0f}",
                f"{elapsed / floor:.1f}x",
                f"{size / files_floor:,.0f}",
                f"{elapsed / (floor + files_floor):.2f}x",
                f"{_index_bytes(store) / 2**20:.1f} MiB",
                f"{_folder_bytes(store) / 2**20:.1f} MiB",
                ", ".join(f"{size / r[0]:,.0f}" for r in runs),
                ", ".join(f"{r[3]:.0f}" for r in runs),
            )
        )
    print_table(
        f"Bulk import (`tether import`, in-process, files + index; median of {IMPORT_RUNS})",
        (
            "memories",
            "memories/s",
            "floor A: trigram insert rows/s",
            "vs A",
            "floor B: bare file writes/s",
            "vs A + B",
            "index",
            "files",
            "each run (memories/s)",
            "file create before (µs)",
        ),
        rows,
    )
    print(
        "\nfile create before: one empty file created just before the import "
        "(bench.floors.create_probe); several times its usual cost means many files were "
        "deleted on this file system in the minutes before (ext4 without a journal), which "
        "slows the import and floor B alike"
    )
    return stores


def bench_open(store: MemoryStore, repeats: int) -> None:
    """Median cost of opening an unchanged store (stat every file + one fingerprint row)."""
    location = store.location
    folder = store.folder.path
    names = os.listdir(folder)
    opens, stats = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        fresh = MemoryStore(location, notice=lambda m: None)
        fresh.conn  # noqa: B018 - opening and syncing is what is measured
        opens.append(time.perf_counter() - start)
        fresh.close()
        start = time.perf_counter()
        fd = os.open(folder, os.O_RDONLY)
        for name in names:
            os.stat(name, dir_fd=fd)
        os.close(fd)
        stats.append(time.perf_counter() - start)
    count = len(names)
    print_table(
        f"Open an unchanged store of {count:,} memories (median of {repeats})",
        ("open + confirm unchanged", "floor: stat every file", "vs floor"),
        [
            (
                f"{median(opens) * 1000:.1f} ms",
                f"{median(stats) * 1000:.1f} ms",
                f"{median(opens) / median(stats):.2f}x",
            )
        ],
    )


def bench_remember(store: MemoryStore, count: int, work: Path) -> None:
    """Single in-process remember latency against a bare durable file write."""
    times, floor = [], []
    repo = store.repo_root
    assert repo is not None
    for index in range(count):
        draft = store.prepare_memory(
            summary=f"single write number {index} must stay fast",
            category="gotcha",
            files=[store.normalize_input("src/auth/routes.ts", repo)],
            details="measured one at a time",
            author="bench",
        )
        start = time.perf_counter()
        store.remember(draft)
        times.append(time.perf_counter() - start)
        target = work / f"floor-{index}.md"
        start = time.perf_counter()
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, b"x" * 300)
        os.fsync(fd)
        os.close(fd)
        floor.append(time.perf_counter() - start)
    print_table(
        f"Single `remember` in-process ({count} writes into the store above)",
        ("p50", "p99", "floor p50: one fsync'd file write", "p50 vs floor"),
        [
            (
                f"{median(times) * 1000:.2f} ms",
                f"{percentile(times, 99) * 1000:.2f} ms",
                f"{median(floor) * 1000:.2f} ms",
                f"{median(times) / median(floor):.1f}x",
            )
        ],
    )


def main(argv: list[str] | None = None) -> int:
    """Run the foundation benchmark and print its tables."""
    parser = argparse.ArgumentParser(prog="python -m bench.foundation_bench")
    parser.add_argument("--quick", action="store_true", help="1k and 10k instead of 10k and 100k")
    args = parser.parse_args(argv)
    sizes = [1_000, 10_000] if args.quick else [10_000, 100_000]
    with tempfile.TemporaryDirectory(prefix="tether-bench-") as tmp:
        work = Path(tmp)
        stores = bench_import(sizes, work)
        ten_k = stores[10_000]
        bench_open(ten_k, repeats=21)
        bench_remember(ten_k, count=200, work=work)
        for store in stores.values():
            store.close()
    print_command()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
