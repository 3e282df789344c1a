"""Benchmark: ``tether index`` with the symbol index on a C repository of about 700 files.

Synthesizes a repository of C sources (structs, macros, ``#ifdef`` blocks, functions of
10–30 lines) with a short history, then times, in the same run and interleaved:

* full: ``Genome.refresh(full=True)`` into a fresh index, against the git floor of the
  same reading (``git log`` of the history, ``git ls-files -s``, and every source blob read
  through ``git cat-file --batch``), and against the same refresh without the symbol index;
* after one new commit that edits one file: the incremental refresh, against the floor of
  ``git log <last>..HEAD``, ``git ls-files -s`` and the changed blob through cat-file;
* ``tether check`` of a 50-file change (one function edited in each) against 1,000 memories,
  each anchored to a function (half of them in the changed files), against the floor of the
  two ``git diff`` reads it makes.

CPU time (user + system of this process and of its git children) is reported beside wall
time, and the load average, since wall time on a shared machine is noisy.

    python -m bench.symbols_bench [--files 700] [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.genome_bench import FLOOR_ARGS, Timing, _Clock, _record, _remove_db, time_refresh
from bench.index_files import copy_index, open_index
from recall.genome import refresh as refresh_module
from recall.genome.symbols.index import SymbolBatch

# The goals: a full index of a 700-file C repository, and the index after one commit.
GOAL_FULL_MS = 3000
GOAL_INCREMENTAL_MS = 150
GOAL_CHECK_MS = 1000
HISTORY_COMMITS = 60
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def _function(rng: random.Random, name: str) -> str:
    lines = [f"static int {name}(struct ctx *ctx, int argc, char **argv)", "{", "\tint ret = 0;"]
    for step in range(rng.randint(8, 28)):
        kind = rng.random()
        if kind < 0.3:
            lines.append(f"\tif (argc > {step}) {{\n\t\tret = parse_arg(ctx, argv[{step}]);\n\t}}")
        elif kind < 0.5:
            lines.append(f"\tfor (int i = 0; i < {step + 2}; i++)\n\t\tret += ctx->v[i];")
        elif kind < 0.6:
            lines.append("#ifdef HAVE_FEATURE\n\tret |= FEATURE_BIT;\n#endif")
        else:
            lines.append(f'\tfprintf(stderr, "{name} step {step}: %d\\n", ret);')
    lines += ["\treturn ret;", "}", ""]
    return "\n".join(lines)


def c_source(rng: random.Random, stem: str, functions: int) -> str:
    """One C file: includes, a struct, macros and ``functions`` functions."""
    parts = [
        f"/* {stem}.c: generated for the symbol index benchmark */",
        "#include <stdio.h>",
        '#include "common.h"',
        "",
        f"#define {stem.upper()}_MAX 64",
        f"#define {stem.upper()}_FLAG(x) ((x) << 2)",
        "",
        f"struct {stem}_state {{\n\tint count;\n\tchar name[{stem.upper()}_MAX];\n}};",
        "",
    ]
    parts += [_function(rng, f"{stem}_fn{n}") for n in range(functions)]
    return "\n".join(parts)


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **GIT_ENV},
    )
    return done.stdout.strip()


def synthesize(repo: Path, files: int, seed: int = 11) -> None:
    """A repository of ``files`` C files in folders of 30, and a short history of edits."""
    rng = random.Random(seed)
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    names = []
    for n in range(files):
        folder = repo / f"mod{n // 30:02d}"
        folder.mkdir(exist_ok=True)
        stem = f"unit{n:04d}"
        (folder / f"{stem}.c").write_text(c_source(rng, stem, rng.randint(8, 24)))
        names.append(f"mod{n // 30:02d}/{stem}.c")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "initial")
    for commit in range(HISTORY_COMMITS):
        for path in rng.sample(names, 2):
            with (repo / path).open("a") as handle:
                handle.write(_function(rng, f"extra_{commit}_{path.rsplit('/', 1)[1][:-2]}"))
        _git(repo, "commit", "-q", "-am", f"edit {commit}")


def time_floor(repo: Path, revisions: list[str], blobs: list[str]) -> tuple[float, float]:
    """Git's own reading: the history, the index listing, and ``blobs`` through cat-file."""
    clock = _Clock()
    for argv in (
        ["git", "-C", str(repo), *FLOOR_ARGS, *revisions],
        ["git", "-C", str(repo), "ls-files", "-s", "-z"],
    ):
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    cat = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        input=("\n".join(blobs) + "\n").encode(),
        stdout=subprocess.PIPE,
        check=True,
    )
    assert cat.stdout
    return clock.stop()


def _blobs(repo: Path, paths: list[str] | None = None) -> list[str]:
    listing = _git(repo, "ls-files", "-s", *(paths or []))
    return [line.split()[1] for line in listing.splitlines()]


def _without_symbols(*_args: object) -> SymbolBatch:
    return SymbolBatch()


def measure(repo: Path, work: Path, runs: int) -> dict[str, Timing]:
    """Full builds (with and without symbols) and incremental refreshes, interleaved."""
    found = {name: Timing() for name in ("full", "full_no_symbols", "incremental")}
    db = work / "full.db"
    blobs = _blobs(repo)
    real = refresh_module.read_symbols
    time_floor(repo, [], blobs)  # warm the page cache for everyone alike
    for _ in range(runs):
        floor = time_floor(repo, [], blobs)
        _remove_db(db)
        elapsed, phases, summary = time_refresh(repo, db, full=True)
        assert summary.symbol_files_parsed == len(blobs), summary
        _record(found["full"], floor, elapsed)
        found["full"].phases.append(phases)
        _remove_db(db)
        refresh_module.read_symbols = _without_symbols  # type: ignore[assignment]
        try:
            elapsed, phases, _ = time_refresh(repo, db, full=True)
        finally:
            refresh_module.read_symbols = real
        _record(found["full_no_symbols"], floor, elapsed)
        found["full_no_symbols"].phases.append(phases)
    snapshot = work / "snapshot.db"
    _remove_db(snapshot)
    time_refresh(repo, snapshot, full=True)
    conn = open_index(snapshot)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    last = _git(repo, "rev-parse", "HEAD")
    changed = "mod03/unit0100.c"
    with (repo / changed).open("a") as handle:
        handle.write(_function(random.Random(3), "one_more_function"))
    _git(repo, "commit", "-q", "-am", "one new commit")
    changed_blobs = _blobs(repo, [changed])
    for _ in range(runs):
        floor = time_floor(repo, [f"{last}..HEAD"], changed_blobs)
        _remove_db(db)
        copy_index(snapshot, db)
        elapsed, phases, summary = time_refresh(repo, db, full=False)
        if summary.mode != "incremental" or summary.symbol_files_parsed != 1:
            raise RuntimeError(f"expected an incremental refresh parsing one file: {summary}")
        _record(found["incremental"], floor, elapsed)
        found["incremental"].phases.append(phases)
    return found


CHECK_FILES = 50
CHECK_MEMORIES = 1000


def measure_check(repo: Path, runs: int) -> Timing:
    """``check`` of a 50-file working-tree change against anchored memories, beside the floor
    of its two git diff reads."""
    from recall.anchors.check import check
    from recall.anchors.symbols import SymbolAnchor
    from recall.genome.symbols.extract import read_file
    from recall.model import Memory

    paths = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*.c"))
    changed = paths[:: max(1, len(paths) // CHECK_FILES)][:CHECK_FILES]
    memories: list[Memory] = []
    for n in range(CHECK_MEMORIES):
        path = changed[n % len(changed)] if n % 2 == 0 else paths[(n * 7) % len(paths)]
        definitions = read_file(path, str(repo / path)).definitions
        chosen = definitions[n % len(definitions)]
        anchor = SymbolAnchor(path, chosen.name, chosen.body)
        memories.append(
            Memory(
                id=f"{n:08x}",
                category="gotcha",
                summary=f"memory {n}",
                files=(path,),
                anchors=(anchor,),
            )
        )
    for path in changed:
        text = (repo / path).read_text()
        (repo / path).write_text(text.replace("\treturn ret;", "\treturn ret + 1;", 1))
    timing = Timing()
    for _ in range(runs + 1):
        clock = _Clock()
        for args in (["diff", "--name-status", "-z", "-M", "HEAD"], ["diff", "-U0", "-M", "HEAD"]):
            subprocess.run(["git", "-C", str(repo), *args], stdout=subprocess.DEVNULL, check=True)
        floor = clock.stop()
        clock = _Clock()
        result = check(repo, memories, "HEAD", {})
        elapsed = clock.stop()
        if len(result.changes) != len(changed):
            raise RuntimeError(f"expected {len(changed)} changed files, got {result.changes}")
        _record(timing, floor, elapsed)
    for series in (timing.floor, timing.floor_cpu, timing.genome, timing.genome_cpu):
        del series[0]  # the first run loads the grammar: kept out, as a warm process would be
    return timing


def _median(values: list[float]) -> float:
    return statistics.median(values)


def _row(label: str, timing: Timing, goal_ms: float | None) -> str:
    wall, cpu = _median(timing.genome), _median(timing.genome_cpu)
    floor, floor_cpu = _median(timing.floor), _median(timing.floor_cpu)
    goal = (
        "no goal"
        if goal_ms is None
        else (
            f"≤ {goal_ms:,.0f} ms: {'met' if wall <= goal_ms else 'missed'} (wall), "
            f"{'met' if cpu <= goal_ms else 'missed'} (CPU)"
        )
    )
    return (
        f"| {label} | {floor:,.0f} ms | {wall:,.0f} ms | {wall / floor:.1f}× "
        f"| {floor_cpu:,.0f} ms | {cpu:,.0f} ms | {cpu / floor_cpu:.1f}× | {goal} |"
    )


def _phases(timing: Timing) -> str:
    names = [name for name in timing.phases[0] if name != "total"]
    return ", ".join(
        f"{name} {_median([p.get(name, 0.0) for p in timing.phases]):,.0f}" for name in names
    )


def run(args: argparse.Namespace) -> int:
    """Synthesize the repository, measure, and print the table."""
    runs = args.runs or (1 if args.quick else 3)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="symbols-bench-") as tmp:
        work = Path(tmp)
        repo = work / "c-repo"
        synthesize(repo, args.files)
        size = sum(p.stat().st_size for p in repo.rglob("*.c"))
        found = measure(repo, work, runs)
        found["check"] = measure_check(repo, runs)
    load_after = os.getloadavg()
    lines = [
        f"Symbol index benchmark — medians of {runs} runs, {os.cpu_count()} CPUs, "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after",
        f"synthetic C repository: {args.files} files, {size / 1e6:.1f} MB, "
        f"{HISTORY_COMMITS + 1} commits",
        "",
        "| measurement | git floor wall | index wall | ratio | git floor CPU | index CPU "
        "| CPU ratio | goal |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
        _row("full `tether index` with symbols", found["full"], GOAL_FULL_MS),
        _row("full, same refresh without the symbol index", found["full_no_symbols"], None),
        _row("after one new commit (one file edited)", found["incremental"], GOAL_INCREMENTAL_MS),
        _row(
            f"`tether check`, {CHECK_FILES}-file change, {CHECK_MEMORIES:,} anchored memories",
            found["check"],
            GOAL_CHECK_MS,
        ),
        "",
        f"- phases, full with symbols (ms): {_phases(found['full'])}",
        f"- phases, after one commit (ms): {_phases(found['incremental'])}",
        "- git floor: `git " + " ".join(FLOOR_ARGS) + " [<last>..HEAD]`, `git ls-files -s`, "
        "and the source blobs (all, or the changed one) through `git cat-file --batch`. "
        "Index: `Genome.refresh` in-process into a fresh WAL index (a copy of the full one "
        "for the incremental run); CPU is user + system of the process and its git children.",
        "",
        "command: `" + shlex.join(["python", "-m", "bench.symbols_bench", *sys.argv[1:]]) + "`",
    ]
    print("\n".join(lines))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.symbols_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--files", type=int, default=700, help="C files to synthesize")
    parser.add_argument("--runs", type=int, default=0, help="runs per measurement")
    parser.add_argument("--quick", action="store_true", help="one run of each")
    return run(parser.parse_args(argv if argv is not None else sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
