"""``tether search`` on a word most memories hold, against one only a few hold and a bare
full-text query (the floor), in-process on a store built by a real import.

A person's search asks for the best few matches; a word every memory holds makes every
memory a match, so the cost of the ranking and of the status filter grows with the store. The
floor is one ranked query of the word index alone (bm25, best two), which a search makes
besides its status filter, the trigram index and reading the memories found.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from bench.table import median, print_command, print_table
from recall.importer import import_lines
from recall.locations import project_location
from recall.search import search
from recall.store import MemoryStore

COMMON = "caching"
RARE = "zebra"


def _store(root: Path, size: int) -> MemoryStore:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    store = MemoryStore(project_location(root, create_at_cwd=True), notice=lambda m: None)
    lines = [
        json.dumps(
            {
                "summary": f"memory {n} about the {COMMON} layer"
                + (f" and the {RARE} pool" if n % 500 == 0 else ""),
                "category": "context",
                "files": [f"src/mod{n % 50}.py"],
                "details": f"note {n}: " + "the layer keeps answers for a while. " * 6,
            }
        )
        for n in range(size)
    ]
    import_lines(store, lines, lambda path: path, "bench")
    return store


def _timed(store: MemoryStore, word: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        search(store.conn, word, limit=2)
        times.append(time.perf_counter() - start)
    return median(times)


def _floor(store: MemoryStore, word: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        store.conn.execute(
            "SELECT rowid, bm25(fts_words) AS score FROM fts_words WHERE fts_words MATCH ? "
            "ORDER BY score LIMIT 2",
            (word,),
        ).fetchall()
        times.append(time.perf_counter() - start)
    return median(times)


def main(argv: list[str] | None = None) -> int:
    """Build the stores, time the searches, print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.search_bench")
    parser.add_argument("--quick", action="store_true", help="1,000 and 3,000 memories")
    parser.add_argument("--runs", type=int, default=11, help="searches per word (median)")
    args = parser.parse_args(argv)
    sizes = [1_000, 3_000] if args.quick else [3_000, 10_000]
    rows = []
    with tempfile.TemporaryDirectory(prefix="tether-search-") as tmp:
        for size in sizes:
            store = _store(Path(tmp) / f"repo-{size}", size)
            try:
                common = _timed(store, COMMON, args.runs)
                rare = _timed(store, RARE, args.runs)
                floor = _floor(store, COMMON, args.runs)
            finally:
                store.close()
            rows.append(
                (
                    f"{size:,}",
                    f"{common * 1000:.1f} ms",
                    f"{rare * 1000:.1f} ms",
                    f"{floor * 1000:.2f} ms",
                    f"{common / floor:.0f}x",
                )
            )
    print_table(
        "`tether search` in-process (median), a word every memory holds and one a few hold",
        (
            "memories",
            f"'{COMMON}' (all)",
            f"'{RARE}' (1 in 500)",
            "floor: one ranked match",
            "vs floor",
        ),
        rows,
    )
    print_command()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
