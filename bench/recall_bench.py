"""Recall latency benchmark: warm in-process recall at 1k, 10k and 100k memories, and
``tether inject`` as a whole process at 10k.

One git repository of 20,000 files with realistic paths (``bench.synth.repo_paths``) and a
few hundred commits of history is written with ``git fast-import``: clusters of files that
change together (co-change), random small commits, and bulk sweeps the genome ignores.
TypeScript files import a hub file of their area, so import fan-in (blast radius) is real.
For each size the repository is cloned, ``bench.synth.memories`` are imported in-process,
the genome is indexed and the vector cache built. Then, with every channel on (touched
files, a prompt, semantic vectors), it measures:

* p50/p99 of ``Recaller.recall`` over ~200 queries, after a warm-up;
* each channel's share of that time, from ``RecallResult.timings_ms``;
* ``tether inject`` at 10k as a fresh process (median of ~15), beside ``python -c pass``
  and ``python -m recall --version`` measured alternately in the same run.

Goals (issue 4): p50 <= 10 ms at 10k, <= 50 ms at 100k, p99 <= 100 ms; inject <= 250 ms.
``--profile`` (or a missed goal) prints the hottest functions of the largest size.

    python -m bench.recall_bench [--quick] [--queries N] [--inject-runs N] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import posixpath
import pstats
import random
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench import options, rankings, synth
from bench.table import median, percentile, print_table
from recall.genome import Genome
from recall.importer import import_lines
from recall.locations import project_location
from recall.ranking.engine import Recaller
from recall.ranking.file_channels import cochange_neighbours, touch_weights
from recall.ranking.query import RecallQuery, Touch
from recall.store import MemoryStore

SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 10_000)
#: Files in the repository: the largest pool ``synth.memories`` draws from (100k // 5), so
#: every size's memories name files that exist.
REPO_FILES = 20_000
#: Seed of ``synth.memories``; its file pool is ``repo_paths(pool, seed)``.
MEMORY_SEED = 11
HISTORY_COMMITS = 400
CLUSTER_SIZE = 5
QUERIES = 200
QUICK_QUERIES = 100
WARMUP = 20
INJECT_RUNS = 15
QUICK_INJECT_RUNS = 7
INJECT_SIZE = 10_000
GOALS_P50_MS = {10_000: 10.0, 100_000: 50.0}
GOAL_P99_MS = 100.0
GOAL_INJECT_MS = 250.0
CHANNELS = ("prepare", "file", "cochange", "text", "semantic", "adjust", "drift")
AUTHOR = "Bench <bench@tether.invalid>"

# Questions an agent or a person asks while editing; they share words with the memories.
_ASKS = (
    "why do we retry the request with backoff here?",
    "should the {area} worker hold the store lock while flushing?",
    "does {area} need to invalidate the cache after a schema change?",
    "where do we escape user text before it reaches MATCH?",
    "fix the flaky {area} test: close the cursor before committing",
    "how are paths normalized at the database boundary in {area}?",
    "can I use npm instead of bun for installs?",
    "why must session writes go through safeRename?",
    "the {area} client drops requests under load, what is the known gotcha?",
    "rename the {area} session cache and keep the tests green",
)
_AREAS = ("auth", "api", "store", "ui", "sync", "billing", "search", "build", "db", "net")


# -- the repository ------------------------------------------------------------------------


def _quote(path: str) -> bytes:
    """A path in fast-import's quoted form (the synthetic paths are plain ASCII)."""
    return b'"' + path.replace("\\", "\\\\").replace('"', '\\"').encode() + b'"'


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


@dataclass
class Layout:
    """The synthetic repository: its files, hub files and co-change clusters."""

    paths: list[str]
    hubs: dict[str, str]
    clusters: list[list[str]]
    commits: int = 0


def _area(path: str) -> str:
    return path.split("/")[1]


def plan_layout(seed: int = 5) -> Layout:
    """Files, one hub per area (imported by the area's TypeScript), and clusters drawn from
    the smallest memory pool so co-change neighbours carry memories at every size."""
    rng = random.Random(seed)
    paths = synth.repo_paths(REPO_FILES, MEMORY_SEED)
    smallest = synth.repo_paths(max(50, min(SIZES) // 5), MEMORY_SEED)
    hubs: dict[str, str] = {}
    for path in smallest:
        if path.endswith(".ts"):
            hubs.setdefault(_area(path), path)
    shuffled = list(smallest)
    rng.shuffle(shuffled)
    clusters = [
        shuffled[start : start + CLUSTER_SIZE]
        for start in range(0, len(shuffled) - CLUSTER_SIZE + 1, CLUSTER_SIZE)
    ]
    return Layout(paths, hubs, clusters)


def source(path: str, layout: Layout, revision: int) -> bytes:
    """File content; TypeScript imports its area's hub by a relative specifier."""
    lines = [f"// {path}", f"export const revision = {revision}"]
    hub = layout.hubs.get(_area(path))
    if path.endswith((".ts", ".tsx")) and hub and hub != path:
        spec = posixpath.relpath(hub.removesuffix(".ts"), posixpath.dirname(path))
        spec = spec if spec.startswith(".") else f"./{spec}"
        lines.insert(0, f"import {{ shared }} from '{spec}'")
    return ("\n".join(lines) + "\n").encode()


def history(layout: Layout, seed: int = 3) -> Iterator[list[str]]:
    """The paths of each commit after the initial one: cluster work, stray edits, sweeps."""
    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(len(layout.clusters))]
    for _ in range(HISTORY_COMMITS):
        roll = rng.random()
        if roll < 0.70:
            cluster = rng.choices(layout.clusters, weights)[0]
            yield rng.sample(cluster, rng.randint(2, min(4, len(cluster))))
        elif roll < 0.95:
            yield rng.sample(layout.paths, rng.randint(1, 3))
        else:
            yield rng.sample(layout.paths, rng.randint(40, 80))  # over the genome's size cap


def build_repository(dest: Path, layout: Layout) -> None:
    """Write the initial tree and the history into a bare repository with git fast-import."""
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(dest)], check=True)
    process = subprocess.Popen(
        ["git", "-C", str(dest), "fast-import", "--quiet"], stdin=subprocess.PIPE
    )
    stream = process.stdin
    assert stream is not None
    stamp = 1_700_000_000
    commits = [list(layout.paths), *history(layout)]
    try:
        for number, paths in enumerate(commits):
            stamp += 3600
            message = b"initial layout\n" if number == 0 else b"change %d\n" % number
            stream.write(b"commit refs/heads/main\n")
            for role in (b"author", b"committer"):
                stream.write(role + b" " + AUTHOR.encode() + b" %d +0000\n" % stamp)
            stream.write(_data(message))
            for path in paths:
                stream.write(b"M 100644 inline " + _quote(path) + b"\n")
                stream.write(_data(source(path, layout, number)))
            stream.write(b"\n")
    finally:
        stream.close()
    if process.wait() != 0:
        raise RuntimeError("git fast-import failed")
    layout.commits = len(commits)


# -- one size --------------------------------------------------------------------------------


@dataclass
class Setup:
    """A checked-out clone with its store imported, genome indexed and vectors cached."""

    size: int
    root: Path
    store: MemoryStore
    genome: Genome
    recaller: Recaller
    seconds: dict[str, float] = field(default_factory=dict)


def _timed(seconds: dict[str, float], name: str, start: float) -> None:
    seconds[name] = time.perf_counter() - start


def prepare_size(bare: Path, work: Path, size: int) -> Setup:
    """Clone, import ``size`` memories in-process, index the genome, build the vector cache."""
    seconds: dict[str, float] = {}
    root = work / f"repo-{size}"
    start = time.perf_counter()
    subprocess.run(["git", "clone", "-q", str(bare), str(root)], check=True)
    _timed(seconds, "clone", start)
    store = MemoryStore(project_location(root, create_at_cwd=True), notice=lambda m: None)
    records = [json.dumps(r) for r in synth.memories(size, MEMORY_SEED)]
    start = time.perf_counter()
    results = import_lines(store, records, lambda p: store.normalize_input(p, root), "bench")
    _timed(seconds, "import", start)
    if sum(r.status == "created" for r in results) != size:
        raise RuntimeError(f"import of {size} memories lost some")
    start = time.perf_counter()
    genome = Genome.load(root, store.conn)
    _timed(seconds, "genome index", start)
    recaller = Recaller([store], genome, cache_dir=store.location.base / "cache")
    start = time.perf_counter()
    recaller.recall(RecallQuery((), "build the vector cache"))
    _timed(seconds, "vectors", start)
    return Setup(size, root, store, genome, recaller, seconds)


def traceback_paste(rng: random.Random, ask: str) -> str:
    """A chained Python traceback of about 3 KB with the question last."""
    frames = "".join(
        f'  File "/srv/app/src/{rng.choice(_AREAS)}/worker{n}.py", line {rng.randint(10, 900)}, '
        f"in handle\n    self.flush(batch, timeout={n})\n"
        for n in range(28)
    )
    return (
        f"Traceback (most recent call last):\n{frames}"
        "sqlite3.OperationalError: database is locked\n"
        f"{ask}"
    )


def make_queries(size: int, layout: Layout, count: int, seed: int = 17) -> list[RecallQuery]:
    """Touched files (cluster files half the time, so co-change fires) and a prompt:
    a question, a pasted traceback ending in one, or none."""
    rng = random.Random(seed)
    pool = synth.repo_paths(max(50, size // 5), MEMORY_SEED)
    queries = []
    for _ in range(count):
        touched: list[str] = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            if rng.random() < 0.5:
                touched.append(rng.choice(rng.choice(layout.clusters)))
            else:
                touched.append(rng.choice(pool))
        ask = rng.choice(_ASKS).format(area=rng.choice(_AREAS))
        roll = rng.random()
        prompt = ask if roll < 0.8 else traceback_paste(rng, ask) if roll < 0.9 else None
        kinds = [rng.choice(("edit", "edit", "open")) for _ in touched]
        touches = tuple(Touch(path, kind) for path, kind in zip(touched, kinds, strict=True))
        queries.append(RecallQuery(touches, prompt, scopes=("project",)))
    return queries


@dataclass
class Latency:
    """Per-query wall times (ms) and channel totals (ms) of one size."""

    times: list[float]
    channels: dict[str, float]
    hits: float
    cochange_queries: int
    cochange_hits: int
    ranked: list[list[str]] = field(default_factory=list)


def measure(recaller: Recaller, queries: Sequence[RecallQuery]) -> Latency:
    """Warm up on a few queries, then time every query once."""
    for query in queries[:WARMUP]:
        recaller.recall(query)
    times: list[float] = []
    channels = dict.fromkeys((*CHANNELS, "other"), 0.0)
    hits = 0
    with_neighbours = 0
    with_cochange = 0
    repo = recaller.repo
    ranked = []
    for query in queries:
        start = time.perf_counter()
        result = recaller.recall(query)
        times.append((time.perf_counter() - start) * 1000)
        # by content: the synthetic memories get new random ids in every run
        ranked.append([hit.memory.content_hash for hit in result.hits])
        for name, value in result.timings_ms.items():
            channels[name] = channels.get(name, 0.0) + value
        channels["other"] += result.elapsed_ms - sum(result.timings_ms.values())
        hits += len(result.hits)
        touched = touch_weights(query.touches)
        with_neighbours += bool(cochange_neighbours(touched, repo.neighbours, repo.exists))
        with_cochange += any("cochange" in h.signals for h in result.hits)
    return Latency(times, channels, hits / len(queries), with_neighbours, with_cochange, ranked)


def profile(recaller: Recaller, queries: Sequence[RecallQuery], top: int = 14) -> str:
    """The functions that take the most time (own time) over the queries, cProfile's view."""
    profiler = cProfile.Profile()
    profiler.enable()
    for query in queries:
        recaller.recall(query)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


# -- the inject process ----------------------------------------------------------------------


def run_ms(command: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> float:
    """Wall milliseconds of one whole process; its stderr's end in the error if it fails."""
    start = time.perf_counter()
    done = subprocess.run(
        command, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, check=False
    )
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} failed: {done.stderr.strip()[-2000:]}")
    return elapsed


INJECT = "tether inject"
INJECT_NO_PYC = "tether inject, no bytecode cache"
FLOOR = "python -c pass"


def measure_inject(
    setup: Setup, queries: Sequence[RecallQuery], runs: int, work: Path
) -> dict[str, list[float]]:
    """``tether inject`` (prompt on stdin, touched files as --file) as a fresh process, with
    the interpreter floor and the CLI's import cost measured alternately beside it.

    Installed Python packages run from cached bytecode, so the main figure is taken with a
    bytecode cache (kept under ``work`` through ``PYTHONPYCACHEPREFIX``, never in the source
    tree); the same command without one (``PYTHONDONTWRITEBYTECODE``, as some sandboxes
    set) shows what compiling every module on each start costs.
    """
    python = sys.executable
    cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cached["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    uncached = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    uncached.pop("PYTHONPYCACHEPREFIX", None)
    others = {
        FLOOR: ([python, "-c", "pass"], cached),
        "python -m recall --version": ([python, "-m", "recall", "--version"], cached),
    }
    found: dict[str, list[float]] = {INJECT: [], INJECT_NO_PYC: [], **{k: [] for k in others}}
    asked = [q for q in queries if q.prompt and q.touches][: runs + 1]
    for number in range(runs + 1):  # the first round fills the caches and is dropped
        query = asked[number % len(asked)]
        command = [python, "-m", "recall", "inject", "--no-record"]
        for touch in query.touches:
            command += ["--file" if touch.kind != "open" else "--open", touch.path]
        prompt = query.prompt or ""
        timings = {
            INJECT: run_ms(command, setup.root, cached, stdin=prompt),
            INJECT_NO_PYC: run_ms(command, setup.root, uncached, stdin=prompt),
            **{name: run_ms(cmd, setup.root, env) for name, (cmd, env) in others.items()},
        }
        if number:
            for name, value in timings.items():
                found[name].append(value)
    return found


# -- report ----------------------------------------------------------------------------------


def _ms(value: float) -> str:
    return f"{value:.1f} ms" if value < 100 else f"{value:,.0f} ms"


def _verdict(value: float, goal: float | None) -> str:
    if goal is None:
        return "—"
    return f"≤ {goal:g} ms: {'met' if value <= goal else '**missed**'}"


def report(
    results: dict[int, Latency],
    setups: dict[int, Setup],
    inject: dict[str, list[float]] | None,
    layout: Layout,
    queries: int,
) -> bool:
    """Print the tables; return whether every goal was met."""
    met = True
    rows = []
    for size, latency in results.items():
        p50, p99 = median(latency.times), percentile(latency.times, 99)
        goal50 = GOALS_P50_MS.get(size)
        met &= (goal50 is None or p50 <= goal50) and p99 <= GOAL_P99_MS
        rows.append(
            (
                f"{size:,}",
                _ms(p50),
                _verdict(p50, goal50),
                _ms(p99),
                _verdict(p99, GOAL_P99_MS),
                _ms(max(latency.times)),
                f"{latency.hits:.1f}",
                f"{latency.cochange_queries} / {latency.cochange_hits}",
            )
        )
    print_table(
        f"Warm recall in-process, all channels on ({queries} queries per size)",
        (
            "memories",
            "p50",
            "goal",
            "p99",
            "goal",
            "max",
            "hits/query",
            "queries with co-change neighbours / with a co-change hit in the top 10",
        ),
        rows,
    )
    share_rows = []
    for size, latency in results.items():
        total = sum(latency.channels.values())
        share_rows.append(
            (
                f"{size:,}",
                *(
                    f"{100 * latency.channels.get(name, 0.0) / total:.0f}% "
                    f"({latency.channels.get(name, 0.0) / len(latency.times):.2f} ms)"
                    for name in (*CHANNELS, "other")
                ),
            )
        )
    print_table(
        "Where recall time goes (share of total, mean ms per query; `RecallResult.timings_ms`)",
        ("memories", *CHANNELS, "other (fusion, merge)"),
        share_rows,
    )
    print_table(
        "Setup per size (not part of recall latency)",
        ("memories", "git clone + checkout", "import", "genome index", "vector cache"),
        [
            (
                f"{size:,}",
                *(f"{setup.seconds[k]:.1f} s" for k in ("clone", "import", "genome index")),
                f"{setup.seconds['vectors']:.1f} s",
            )
            for size, setup in setups.items()
        ],
    )
    if inject is not None:
        inject_ms = median(inject[INJECT])
        floor = median(inject[FLOOR])
        met &= inject_ms <= GOAL_INJECT_MS
        print_table(
            f"`tether inject` as a whole process at {INJECT_SIZE:,} memories "
            f"(median of {len(inject[INJECT])}, run alternately)",
            ("command", "median", "p90", "minus `python -c pass`", "goal"),
            [
                (
                    f"`{name}`",
                    _ms(median(values)),
                    _ms(percentile(values, 90)),
                    _ms(median(values) - floor),
                    _verdict(median(values), GOAL_INJECT_MS) if name == INJECT else "",
                )
                for name, values in inject.items()
            ],
        )
    print(
        f"\nrepository: {len(layout.paths):,} files (`bench.synth.repo_paths`), "
        f"{layout.commits} commits ({len(layout.clusters)} co-change clusters), "
        f"{len(layout.hubs)} hub files imported by their area's TypeScript; memories from "
        f"`bench.synth.memories` (seed {MEMORY_SEED}); {os.cpu_count()} CPUs. In-process: "
        "one `Recaller` per size over the project store and its genome, vector cache in "
        "`.tether/cache` as the CLI keeps it; time is wall time around `recall()`"
    )
    return met


def run(args: argparse.Namespace) -> int:
    """Build, measure every size, print the tables."""
    sizes = tuple(args.sizes) if args.sizes else QUICK_SIZES if args.quick else SIZES
    count = args.queries or (QUICK_QUERIES if args.quick else QUERIES)
    runs = args.inject_runs or (QUICK_INJECT_RUNS if args.quick else INJECT_RUNS)
    log = (lambda text: print(text, file=sys.stderr, flush=True)) if args.verbose else print_none
    with options.work_folder(args.keep, "recall-bench-") as work:
        if work is None:
            return 2
        layout = plan_layout()
        start = time.perf_counter()
        build_repository(work / "base.git", layout)
        log(f"repository: {layout.commits} commits in {time.perf_counter() - start:.1f} s")
        results: dict[int, Latency] = {}
        setups: dict[int, Setup] = {}
        queries: dict[int, list[RecallQuery]] = {}
        inject = None
        differing = 0
        try:
            for size in sizes:
                setup = prepare_size(work / "base.git", work, size)
                setups[size] = setup
                log(f"{size}: setup {setup.seconds}")
                queries[size] = make_queries(size, layout, count)
                results[size] = measure(setup.recaller, queries[size])
                log(f"{size}: p50 {median(results[size].times):.2f} ms")
                if size == INJECT_SIZE:
                    inject = measure_inject(setup, queries[size], runs, work)
            met = report(results, setups, inject, layout, count)
            ranked = {f"synthetic-{size}": latency.ranked for size, latency in results.items()}
            if args.ranking_check:
                differing = rankings.check(args.ranking_check, ranked)
            if args.ranking_out:
                rankings.save(args.ranking_out, ranked)
            if args.profile or not met:
                largest = max(setups)
                profiled = profile(setups[largest].recaller, queries[largest])
                print(f"\n### cProfile of {count} recalls at {largest:,} memories (own time)\n")
                print("```\n" + profiled.strip() + "\n```")
        finally:
            for setup in setups.values():
                setup.store.close()
    print("\ncommand: `" + shlex.join(["python", "-m", "bench.recall_bench", *args.argv]) + "`")
    return 1 if differing else 0


def print_none(text: str) -> None:
    """Discard a progress line."""


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    argv = sys.argv[1:] if argv is None else argv
    parser = options.parser("python -m bench.recall_bench", __doc__)
    parser.add_argument("--quick", action="store_true", help="1k and 10k, fewer queries")
    parser.add_argument("--queries", type=int, default=0, help="queries per size")
    parser.add_argument("--inject-runs", type=int, default=0, help="tether inject runs")
    parser.add_argument("--profile", action="store_true", help="cProfile the largest size")
    parser.add_argument("--verbose", action="store_true", help="progress on stderr")
    parser.add_argument(
        "--sizes", type=int, nargs="+", metavar="N", help="store sizes (default 1k 10k 100k)"
    )
    parser.add_argument("--keep", type=Path, metavar="DIR", help="build in DIR and keep it")
    options.ranking_options(parser)
    args = parser.parse_args(argv)
    args.argv = argv
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
