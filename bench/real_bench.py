"""Recall latency on real histories: every commit of a shared history imported as a memory,
every task of it asked, timed in-process and through the CLI, beside a floor of the same run.

For each history (``../shared/bench/data/<name>``): the whole commit list is replayed into a
git repository (``bench.replay``), imported through ``tether import`` (every commit, not just
those before the cut) and indexed with ``tether index --full``. Then, with the clock pinned to
the history's last commit:

* **first query**: the first recall of a fresh engine right after the import, modules
  already imported (what the first diagnostic after an import waits for in a running server);
* **in-process**: every task's prompt and touched files through the engine the CLI's batch
  path builds (project and global scope), after a warm-up; p50 / p99 / max, and where the
  time went (``RecallResult.timings_ms``, mean ms per query);
* **CLI batch**: ``tether recall --batch - --json --no-record --limit 10``, reading each
  line's ``elapsed_ms`` (time inside the process, per query);
* **floor**: per task, one FTS5 MATCH of the prompt's words (best 50) and one numpy dot
  product of its vector with every memory's vector, on the same store;
* **whole processes**: ``tether inject`` and ``tether hook pre-edit`` (a fresh session each
  run), each cold (``TETHER_WARM=0``: the whole command in its own process) and warm (handed
  to a warm engine started for the history with ``tether warm``), beside ``python -c pass``.

The import itself is measured against its floor, in the same run on the same texts: bare
atomic writes of the files it wrote plus one FTS5 trigram insert of the commits' summaries and
details (``bench.floors``, in a new process as the import is), CPU time beside wall time.
``--import-only`` measures only that, ``--import-runs`` times per history, with the secret scan
on (as anyone importing their own history has it), after one small import that fills the run's
own bytecode cache (an installed copy has its modules compiled; a timed import must not compile
them); the recall build imports with ``allow_secret`` so every commit is a memory. Nothing is
deleted between the timed steps (a store replaced is set aside in the working folder), and
the cost of one file create is probed just before each import: on ext4 without a journal,
creates within minutes of many deletions cost several times the usual, on both sides.

``--ranking-out FILE`` writes every task's ranked ids (in-process); ``--ranking-check FILE``
compares them with such a file and reports each task whose ranking differs beyond ties.

    python -m bench.real_bench [--history NAME ...] [--quick] [--profile]
    python -m bench.real_bench --import-only [--import-runs N] [--history NAME ...]
"""

from __future__ import annotations

import gc
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench import floors, options, rankings
from bench.quality_session import memory_line
from bench.recall_bench import profile as profile_recalls
from bench.recall_bench import run_ms
from bench.replay import read_commits, replay_records
from bench.table import median, percentile, print_table

HISTORIES = ("iproute2", "rdma-core", "optee", "networkmanager")
QUICK_HISTORIES = ("iproute2",)
WARMUP = 20
PROCESS_RUNS = 9
QUICK_PROCESS_RUNS = 5
FLOOR_TEXT_LIMIT = 50
# Issue 15's goals: (p50, p99) in-process at up to 10k memories, and at 25.7k and beyond.
GOALS_SMALL = (10.0, 30.0)
GOALS_LARGE = (15.0, 50.0)
LARGE_FROM = 20_000
GOAL_FIRST_MS = 150.0
GOAL_PROCESS_MS = 150.0
STAGES = (
    "prepare",
    "candidates",
    "file",
    "cochange",
    "text",
    "semantic",
    "fusion",
    "adjust",
    "hydrate",
    "drift",
)
PYTHON = sys.executable


def _default_data() -> Path:
    return Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "data"


@dataclass
class History:
    """One history built and imported, and what was measured on it."""

    name: str
    repo: Path
    env: dict[str, str]
    memories: int = 0
    tasks: list[dict[str, Any]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    first_ms: float = 0.0
    warm: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)
    floor: list[float] = field(default_factory=list)
    batch: list[float] = field(default_factory=list)
    batch_wall_s: float = 0.0
    processes: dict[str, list[float]] = field(default_factory=dict)
    ranked: list[list[str]] = field(default_factory=list)
    profile: str = ""
    imports: list[ImportRun] = field(default_factory=list)


@dataclass(frozen=True)
class ImportRun:
    """One ``tether import`` of a whole history and the floor measured beside it."""

    created: int
    refused: int
    scanned: bool  # whether the secret scan ran (no ``allow_secret`` on the lines)
    process: floors.Cost  # the whole ``tether import`` process (CPU: the child's)
    files: floors.Cost  # floor: bare atomic writes of the same files
    trigram: floors.Cost  # floor: one trigram insert of the same texts
    load: float  # one-minute load average when it ended
    probe_us: float = float("nan")  # a file create just before the import (floors.create_probe)

    @property
    def floor(self) -> floors.Cost:
        """Both parts of the floor."""
        return self.files + self.trigram


def _tether(h: History, *args: str, stdin: str | None = None, ok: tuple[int, ...] = (0, 1)) -> str:
    done = subprocess.run(
        [PYTHON, "-m", "recall", *args],
        cwd=h.repo,
        env=h.env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in ok:
        raise RuntimeError(f"tether {' '.join(args)} failed: {done.stderr[-2000:]}")
    return done.stdout


def build_env(folder: Path, work: Path, commits: Sequence[dict[str, Any]]) -> History:
    """The history's repository path and the environment its commands run in."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["TETHER_HOME"] = str(work / f"home-{folder.name}")
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    env["TETHER_NOW"] = commits[-1]["date"]  # rankings (recency) do not move with the day
    return History(folder.name, work / folder.name, env)


def build(
    folder: Path, work: Path, log: Any, *, reuse: bool = False, upto: int | None = None
) -> History:
    """Replay the whole history, import every commit, index the genome (or, with ``reuse``,
    take the repository a previous ``--keep`` run built). With ``upto``, only the commits
    before that index (a history at its cut), the clock pinned to the last of them."""
    commits = list(read_commits(folder / "commits.jsonl"))[:upto]
    h = build_env(folder, work, commits)
    repo = h.repo
    if reuse:
        h.tasks = _tasks(folder)
        h.seconds = dict.fromkeys(("replay", "import", "index"), float("nan"))
        h.memories = _count(h)
        return h
    start = time.perf_counter()
    replay_records(iter(commits), repo)
    h.seconds["replay"] = time.perf_counter() - start
    log(f"{h.name}: replayed {len(commits)} commits in {h.seconds['replay']:.1f} s")
    # public commit messages, not secrets: every commit is a memory, as the tasks expect
    run = import_once(h, commits, work / f"floor-{h.name}", scan=False, trash=work / "set-aside")
    h.imports.append(run)
    h.seconds["import"] = run.process.wall
    h.memories = run.created
    start = time.perf_counter()
    _tether(h, "index", "--full", "--json")
    h.seconds["index"] = time.perf_counter() - start
    h.tasks = _tasks(folder)
    log(
        f"{h.name}: {h.memories} memories imported in {h.seconds['import']:.1f} s, "
        f"indexed in {h.seconds['index']:.1f} s; {len(h.tasks)} tasks"
    )
    return h


def _import_lines(commits: Sequence[dict[str, Any]], *, scan: bool) -> str:
    """The history as ``tether import`` input: one memory per commit."""
    return "\n".join(memory_line(c, scan=scan) for c in commits)


def set_aside(path: Path, trash: Path) -> None:
    """Move ``path`` (if there) into ``trash`` instead of deleting it: on ext4 without a
    journal, files created within minutes of many deletions cost several times the usual
    (:func:`bench.floors.create_probe`), so a timed import must not follow the removal of the
    store before it. ``trash`` goes with the run's working folder, after the last timing."""
    if path.exists():
        trash.mkdir(parents=True, exist_ok=True)
        path.rename(trash / f"{path.name}-{uuid.uuid4().hex[:8]}")


def import_once(
    h: History,
    commits: Sequence[dict[str, Any]],
    scratch: Path,
    *,
    scan: bool,
    trash: Path,
) -> ImportRun:
    """``tether import`` of every commit into a new store, and the floor on the same texts
    (the files the import wrote, the commits' summaries and details) in ``scratch``. Nothing
    is deleted: an earlier store and the floor's files are set aside in ``trash``."""
    store = h.repo / ".tether"
    set_aside(store, trash)
    _tether(h, "init")
    lines = _import_lines(commits, scan=scan)
    rows = [(c["subject"] or "(no subject)", c["body"]) for c in commits]
    probe_us = floors.create_probe(trash / f"probe-{uuid.uuid4().hex[:8]}")
    wall, cpu, user = time.perf_counter(), floors.child_cpu_seconds(), floors.child_user_seconds()
    # exit 2: some lines refused (a commit holding a credential), the rest imported
    out = _tether(h, "import", "-", "--json", stdin=lines, ok=(0, 2))
    process = floors.Cost(
        time.perf_counter() - wall,
        floors.child_cpu_seconds() - cpu,
        floors.child_user_seconds() - user,
    )
    results = [json.loads(line) for line in out.splitlines() if line.strip()]
    floor = floors.import_floor_process(store / "memories", rows, scratch / "floor")
    set_aside(scratch, trash)
    return ImportRun(
        created=sum(r.get("status") == "created" for r in results),
        refused=sum(r.get("status") == "error" for r in results),
        scanned=scan,
        process=process,
        files=floor[0],
        trigram=floor[1],
        load=os.getloadavg()[0],
        probe_us=probe_us,
    )


def _tasks(folder: Path) -> list[dict[str, Any]]:
    tasks = [json.loads(t) for t in (folder / "tasks.jsonl").read_text().splitlines() if t]
    return [t for t in tasks if t["prompt"] or t["touched"]]


def _count(h: History) -> int:
    """Memories in a store built before."""
    import sqlite3

    with sqlite3.connect(h.repo / ".tether" / "index.db") as conn:
        return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])


def _engine(h: History) -> tuple[Any, Any]:
    """(context, engine) as the CLI's batch path builds them, in this process."""
    from recall.cli.cmd_recall import _recaller
    from recall.cli.context import CommandContext

    ctx = CommandContext(json_output=True, cwd=h.repo)
    return ctx, _recaller(ctx, "all", short_lived=False)


def _query(recaller: Any, task: dict[str, Any]) -> Any:
    from recall.ranking.query import RecallQuery, Touch

    touches = tuple(Touch(path, "edit") for path in task["touched"])
    return RecallQuery(touches, task["prompt"] or None, limit=10)


def measure_in_process(h: History, profile: bool) -> None:
    """First query after the import, then every task warm; stage times summed."""
    saved = {k: os.environ.get(k) for k in ("TETHER_HOME", "TETHER_NOW")}
    os.environ.update({k: h.env[k] for k in saved})
    bytecode = compiled_modules()
    try:
        # Modules imported first: the first query is the engine's cold state (store, genome,
        # vectors, vocabulary), not Python's imports, which the whole-process rows show.
        import numpy  # noqa: F401

        import recall.cli.cmd_recall
        import recall.ranking.engine  # noqa: F401

        # What this process keeps of the histories measured before (their rankings, timings)
        # is set aside from the collector, as a fresh process has none of it to traverse.
        gc.collect()
        gc.freeze()
        start = time.perf_counter()
        ctx, recaller = _engine(h)
        first = recaller.recall(_query(recaller, h.tasks[0]))
        h.first_ms = (time.perf_counter() - start) * 1000
        gc.unfreeze()
        h.seconds["first query (engine + recall)"] = h.first_ms / 1000
        del first
        queries = [_query(recaller, t) for t in h.tasks]
        for query in queries[:WARMUP]:
            recaller.recall(query)
        for query in queries:
            start, used = time.perf_counter(), time.thread_time()
            result = recaller.recall(query)
            h.warm.append((time.perf_counter() - start) * 1000)
            h.cpu.append((time.thread_time() - used) * 1000)
            for name, value in result.timings_ms.items():
                h.stages[name] = h.stages.get(name, 0.0) + value
            h.ranked.append([hit.memory.id for hit in result.hits])
        if profile:
            h.profile = profile_recalls(recaller, queries, top=25)
        measure_floor(h, recaller, queries)
        ctx.close()
    finally:
        bytecode()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def compiled_modules() -> Any:
    """Load the project's modules from compiled bytecode, as an installed copy does, until
    the returned function is called.

    The engine imports some modules on first use (the text channel's kept counts, the
    vectors); a checkout run with ``PYTHONDONTWRITEBYTECODE`` would compile them from source
    inside the timed first query (about 20 ms of CPU of networkmanager's first query at load 4),
    which no installed copy does.
    """
    import compileall

    import recall

    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    compileall.compile_dir(Path(recall.__file__).parent, quiet=2)

    def restore() -> None:
        sys.dont_write_bytecode = saved

    return restore


def measure_floor(h: History, recaller: Any, queries: Sequence[Any]) -> None:
    """One FTS5 MATCH and one dot product over every vector per task, on the same store."""
    import numpy as np

    from recall.index import fts
    from recall.ranking.embedding import HashEmbedder
    from recall.ranking.sanitize import sanitize_prompt
    from recall.ranking.vector_blobs import unpack_rows

    conn = recaller.stores[0].conn
    embedder = HashEmbedder()
    blobs = conn.execute(
        "SELECT vec FROM vectors WHERE model = ? ORDER BY memory_rowid", (embedder.name,)
    ).fetchall()
    matrix = unpack_rows([b[0] for b in blobs], embedder.dim)
    sql = "SELECT rowid FROM fts_words WHERE fts_words MATCH ? ORDER BY rank LIMIT ?"
    for query in queries:
        text = sanitize_prompt(query.prompt).query if query.prompt else ""
        expression = fts.match_expression(fts.word_tokens(text), "OR")
        start = time.perf_counter()
        if expression is not None:
            conn.execute(sql, (expression, FLOOR_TEXT_LIMIT)).fetchall()
        if text:
            scores = matrix @ embedder.embed(text)
            np.argpartition(scores, -10)[-10:] if len(scores) > 10 else scores
        h.floor.append((time.perf_counter() - start) * 1000)


def measure_batch(h: History) -> None:
    """Every task through ``tether recall --batch`` in one process; ``elapsed_ms`` per line."""
    lines = "\n".join(json.dumps({"prompt": t["prompt"], "files": t["touched"]}) for t in h.tasks)
    start = time.perf_counter()
    out = _tether(
        h, "recall", "--batch", "-", "--json", "--no-record", "--limit", "10", stdin=lines
    )
    h.batch_wall_s = time.perf_counter() - start
    h.batch = [json.loads(line)["elapsed_ms"] for line in out.splitlines() if line.strip()]


def _run_ms(h: History, command: list[str], stdin: str = "") -> float:
    """Wall milliseconds of one whole process in the history's repository and environment."""
    return run_ms(command, h.repo, h.env, stdin)


INJECT = "`tether inject`"
PRE_EDIT = "`tether hook pre-edit`"
WARM_INJECT = "`tether inject`, warm engine"
WARM_PRE_EDIT = "`tether hook pre-edit`, warm engine"
PROCESS_FLOOR = "`python -c pass`"


def measure_processes(h: History, runs: int) -> None:
    """``tether inject`` and ``tether hook pre-edit`` as fresh processes, alternately with
    the interpreter floor; the first round fills caches and is dropped."""
    h.processes = {
        INJECT: [],
        PRE_EDIT: [],
        WARM_INJECT: [],
        WARM_PRE_EDIT: [],
        PROCESS_FLOOR: [],
    }
    cold = {**h.env, "TETHER_WARM": "0"}
    warm = {k: v for k, v in h.env.items() if k != "TETHER_WARM"}
    _tether(replace(h, env=warm), "warm")
    try:
        _measure_processes(h, runs, cold, warm)
    finally:
        _tether(replace(h, env=warm), "warm", "--stop")


def _measure_processes(h: History, runs: int, cold: dict[str, str], warm: dict[str, str]) -> None:
    """The runs of :func:`measure_processes`, the cold and warm commands alternately."""
    asked = [t for t in h.tasks if t["prompt"] and t["touched"]]
    step = max(1, len(asked) // (runs + 1))
    for number in range(runs + 1):
        task = asked[(number * step) % len(asked)]
        inject = [PYTHON, "-m", "recall", "inject", "--no-record"]
        for path in task["touched"][:3]:
            inject += ["--file", path]
        edit = {
            "session_id": str(uuid.uuid4()),
            "cwd": str(h.repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {
                "file_path": str(h.repo / task["touched"][0]),
                "old_string": "a",
                "new_string": "b",
            },
        }
        hook = [PYTHON, "-m", "recall", "hook", "pre-edit"]
        timings = {
            INJECT: run_ms(inject, h.repo, cold, task["prompt"]),
            PRE_EDIT: run_ms(hook, h.repo, cold, json.dumps(edit)),
            WARM_INJECT: run_ms(inject, h.repo, warm, task["prompt"]),
            WARM_PRE_EDIT: run_ms(
                hook, h.repo, warm, json.dumps({**edit, "session_id": str(uuid.uuid4())})
            ),
            PROCESS_FLOOR: _run_ms(h, [PYTHON, "-c", "pass"]),
        }
        if number:
            for name, value in timings.items():
                h.processes[name].append(value)


# -- report ----------------------------------------------------------------------------------


def _ms(value: float) -> str:
    return f"{value:.1f} ms" if value < 100 else f"{value:,.0f} ms"


def _goals(memories: int) -> tuple[float, float]:
    return GOALS_LARGE if memories >= LARGE_FROM else GOALS_SMALL


def _mark(value: float, goal: float) -> str:
    return f"{_ms(value)}{'' if value <= goal else ' (goal ' + _ms(goal) + ')'}"


def report(done: list[History]) -> None:
    """Print every table."""
    rows = []
    for h in done:
        goal50, goal99 = _goals(h.memories)
        floor = median(h.floor)
        rows.append(
            (
                h.name,
                f"{h.memories:,}",
                str(len(h.warm)),
                _mark(median(h.warm), goal50),
                _mark(percentile(h.warm, 99), goal99),
                _ms(max(h.warm)),
                f"{_ms(median(h.cpu))} / {_ms(percentile(h.cpu, 99))}",
                _mark(h.first_ms, GOAL_FIRST_MS),
                _ms(floor),
                f"{median(h.warm) / floor:.1f}×" if floor > 0 else "—",
            )
        )
    print_table(
        "Real histories: warm recall in-process (`Recaller`, project + global scope, "
        "every task once after a warm-up)",
        (
            "history",
            "memories",
            "tasks",
            "p50",
            "p99",
            "max",
            "CPU p50 / p99",
            "first query",
            "floor p50",
            "p50 / floor",
        ),
        rows,
    )
    rows = []
    for h in done:
        goal50, goal99 = _goals(h.memories)
        rows.append(
            (
                h.name,
                _mark(median(h.batch), goal50),
                _mark(percentile(h.batch, 99), goal99),
                _ms(max(h.batch)),
                _ms(h.batch[0]),
                f"{h.batch_wall_s:.1f} s",
                _ms(median(h.floor)),
                _ms(percentile(h.floor, 99)),
            )
        )
    print_table(
        "Real histories: `tether recall --batch - --json --no-record --limit 10` "
        "(each line's `elapsed_ms`), with the floor",
        ("history", "p50", "p99", "max", "first line", "whole batch", "floor p50", "floor p99"),
        rows,
    )
    names = sorted({k for h in done for k in h.stages}, key=_stage_order)
    print_table(
        "Where in-process recall time goes (mean ms per query, `RecallResult.timings_ms`)",
        ("history", *names, "total"),
        [
            (
                h.name,
                *(f"{h.stages.get(n, 0.0) / len(h.warm):.2f}" for n in names),
                f"{sum(h.warm) / len(h.warm):.2f}",
            )
            for h in done
        ],
    )
    if any(h.processes for h in done):
        rows = []
        for h in done:
            if not h.processes:
                continue
            floor = median(h.processes[PROCESS_FLOOR])
            for name, values in h.processes.items():
                goal = GOAL_PROCESS_MS if name != PROCESS_FLOOR else None
                rows.append(
                    (
                        h.name,
                        name,
                        _mark(median(values), goal) if goal else _ms(median(values)),
                        _ms(percentile(values, 90)),
                        _ms(median(values) - floor) if name != PROCESS_FLOOR else "",
                    )
                )
        print_table(
            "Whole processes (median of the runs, alternately with `python -c pass`)",
            ("history", "command", "median", "p90", "minus `python -c pass`"),
            rows,
        )
    built = [h for h in done if not math.isnan(h.seconds["import"])]  # NaN: reused
    if built:
        print_table(
            "Setup per history (not part of recall latency)",
            ("history", "replay", "`tether import`", "memories/s", "`tether index --full`"),
            [
                (
                    h.name,
                    f"{h.seconds['replay']:.1f} s",
                    f"{h.seconds['import']:.1f} s",
                    f"{h.memories / h.seconds['import']:,.0f}",
                    f"{h.seconds['index']:.1f} s",
                )
                for h in built
            ],
        )
    reused = [h.name for h in done if math.isnan(h.seconds["import"])]
    if reused:
        print(f"\nSetup not timed (stores of an earlier --keep run reused): {', '.join(reused)}")
    report_imports(done)
    for h in done:
        if h.profile:
            print(f"\n### cProfile of {len(h.tasks)} recalls on {h.name} (own time)\n")
            print("```\n" + h.profile.strip() + "\n```")


def report_imports(done: list[History]) -> None:
    """Each history's import against the floor of the same run (medians over the runs)."""
    rows = []
    for h in done:
        if not h.imports:
            continue
        runs = h.imports
        cpu = median([r.process.cpu for r in runs])
        user = median([r.process.user for r in runs])
        wall = median([r.process.wall for r in runs])
        floor_cpu = median([r.floor.cpu for r in runs])
        floor_wall = median([r.floor.wall for r in runs])
        created = runs[-1].created
        rows.append(
            (
                h.name,
                f"{created:,}",
                str(runs[-1].refused) if runs[-1].scanned else "not scanned",
                str(len(runs)),
                f"{cpu:.2f} s ({user:.2f} user)",
                f"{wall:.2f} s",
                f"{median([r.files.cpu for r in runs]):.2f} + "
                f"{median([r.trigram.cpu for r in runs]):.2f} s "
                f"({median([r.floor.user for r in runs]):.2f} user)",
                f"{floor_wall:.2f} s",
                f"{cpu / floor_cpu:.2f}×" if floor_cpu > 0 else "—",
                f"{wall / floor_wall:.2f}×" if floor_wall > 0 else "—",
                f"{created / cpu:,.0f}" if cpu > 0 else "—",
                ", ".join(f"{r.probe_us:.0f}" for r in runs),
                ", ".join(f"{r.load:.1f}" for r in runs),
            )
        )
    if rows:
        print_table(
            "Bulk import against its floor (same run, same texts; medians over the runs)",
            (
                "history",
                "memories",
                "refused (secrets)",
                "runs",
                "`tether import` CPU (user part)",
                "wall",
                "floor CPU: files + trigram (user part)",
                "floor wall",
                "CPU / floor",
                "wall / floor",
                "memories per CPU s",
                "file create before (µs)",
                "load average",
            ),
            rows,
        )


WARM_LINES = 200  # commits a warm-up import takes: enough to load every module an import does


def warm_bytecode(h: History, commits: Sequence[dict[str, Any]], trash: Path) -> None:
    """One small import into a store thrown away, before the timed ones: the commands run with
    a bytecode cache of this run's own (``PYTHONPYCACHEPREFIX``), empty at first, so without
    it the first timed import would also compile every module it loads (numpy, detect-secrets
    and the rest: about a second of CPU here), which an installed copy never does."""
    _tether(h, "init")
    _tether(
        h, "import", "-", "--json", stdin=_import_lines(commits[:WARM_LINES], scan=True), ok=(0, 2)
    )
    set_aside(h.repo / ".tether", trash)


def measure_imports(folder: Path, work: Path, runs: int, log: Any) -> History:
    """Replay a history once, then import it ``runs`` times into a new store, each time with
    the floor beside it; the secret scan runs, as for anyone importing their own history."""
    commits = list(read_commits(folder / "commits.jsonl"))
    h = build_env(folder, work, commits)
    replay_records(iter(commits), h.repo)
    trash = work / "set-aside"
    warm_bytecode(h, commits, trash)
    for n in range(runs):
        run = import_once(h, commits, work / f"floor-{h.name}", scan=True, trash=trash)
        h.imports.append(run)
        log(
            f"{h.name} import {n + 1}/{runs}: {run.created} memories, CPU {run.process.cpu:.2f} s "
            f"({run.process.user:.2f} user; floor {run.floor.cpu:.2f} s, "
            f"{run.floor.user:.2f} user), wall {run.process.wall:.2f} s "
            f"(floor {run.floor.wall:.2f} s), file create {run.probe_us:.0f} µs, "
            f"load {run.load:.1f}"
        )
    h.memories = h.imports[-1].created
    return h


def _stage_order(name: str) -> tuple[int, str]:
    return (STAGES.index(name) if name in STAGES else len(STAGES), name)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    argv = sys.argv[1:] if argv is None else argv
    parser = options.parser("python -m bench.real_bench", __doc__)
    parser.add_argument("--data", type=Path, default=_default_data(), help="dataset folder")
    parser.add_argument(
        "--history", action="append", default=[], metavar="NAME", help="only this history"
    )
    parser.add_argument("--quick", action="store_true", help="one history, fewer process runs")
    parser.add_argument("--runs", type=int, default=0, help="whole-process runs")
    parser.add_argument("--profile", action="store_true", help="cProfile the warm loop")
    parser.add_argument("--no-processes", action="store_true", help="skip whole processes")
    options.ranking_options(parser)
    parser.add_argument("--keep", type=Path, metavar="DIR", help="build in DIR and keep it")
    parser.add_argument(
        "--import-only",
        action="store_true",
        help="only import each history (secrets scanned) against its floor, --import-runs times",
    )
    parser.add_argument(
        "--import-runs", type=int, default=3, metavar="N", help="imports per history (3)"
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="with --keep: reuse a history built there before (its first query is then not "
        "the first after an import)",
    )
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"no dataset folder at {args.data}; pass --data", file=sys.stderr)
        return 2
    names = args.history or list(QUICK_HISTORIES if args.quick else HISTORIES)
    unknown = [n for n in names if not (args.data / n / "commits.jsonl").is_file()]
    if unknown:
        print(f"no history {', '.join(unknown)} under {args.data}", file=sys.stderr)
        return 2
    runs = args.runs or (QUICK_PROCESS_RUNS if args.quick else PROCESS_RUNS)

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    done: list[History] = []
    with tempfile.TemporaryDirectory(prefix="tether-real-") as tmp:
        work = args.keep.resolve() if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.import_only:
            for name in names:
                if (work / name).exists():
                    print(f"{work / name} exists; give --keep an empty folder", file=sys.stderr)
                    return 2
                done.append(measure_imports(args.data / name, work, args.import_runs, log))
            report_imports(done)
            print(f"\n{os.cpu_count()} CPUs; memories = every commit of the history")
            print("\ncommand: `" + shlex.join(["python", "-m", "bench.real_bench", *argv]) + "`")
            return 0
        for name in names:
            reuse = args.reuse and (work / name / ".tether").is_dir()
            if (work / name).exists() and not reuse:
                print(f"{work / name} exists; give --keep an empty folder", file=sys.stderr)
                return 2
            h = build(args.data / name, work, log, reuse=reuse)
            measure_in_process(h, args.profile)
            log(f"{name}: in-process p50 {median(h.warm):.1f} ms, first {h.first_ms:.0f} ms")
            measure_batch(h)
            if not args.no_processes:
                measure_processes(h, runs)
            done.append(h)
        report(done)
    ranked = {h.name: h.ranked for h in done}
    differing = rankings.check(args.ranking_check, ranked) if args.ranking_check else 0
    if args.ranking_out:
        rankings.save(args.ranking_out, ranked)
    print(
        f"\n{os.cpu_count()} CPUs; memories = every commit of the history; tasks = every task "
        "of tasks.jsonl (all splits); clock pinned to the last commit's date"
    )
    print("\ncommand: `" + shlex.join(["python", "-m", "bench.real_bench", *argv]) + "`")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
