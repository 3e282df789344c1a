"""Recall quality on real fix histories: Tether against the README's baselines, same tasks.

Eval (the headline): for each dataset, replay the history into a real git repository,
import the commits before the cut as memories, and answer every eval task with the
repository **at the task's moment**: its parent commit checked out, the genome refreshed
incrementally (as ``tether index`` does), the clock (``TETHER_NOW``) at the task's date.
The figure with the repository left at the cut (and the clock there) is kept beside it.
The baselines are computed in the same run; the one that follows renames follows those
made before the task (or before the cut, for the cut's figure).

``--tune``: the ``pre_cut`` tasks, each against the memories older than itself and the
repository at its own moment: one chronological pass imports the memories up to each task
(by chunks of ``--chunk`` of the history; a chunk's memories newer than a task are left out
of its answer), checks its parent commit out, refreshes the genome and recalls; ``--variant`` scores
changed constants of ``recall.ranking.weights`` in the same pass, and leave-one-history-out picks
among the variants on three histories and scores the fourth.

``--rehearse 0.6,0.8``: the eval's protocol on pre-cut tasks (``bench.quality_rehearsal``):
the store frozen at those fractions of the cut, the tasks after each that go back before it,
each at its own moment; ``--variant`` and ``--sample`` apply as with ``--tune``.

Results are cached per task under ``--keep`` (keyed by the engine's source), so an
interrupted run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.baselines import MemoryRecord, Renames, make_rankers
from bench.quality_session import Session, clock, patched
from bench.replay import read_commits, replay_records
from bench.table import print_command, print_table

HISTORIES = ("iproute2", "rdma-core", "optee", "networkmanager")
BEST_BASELINE = "the same, renames followed"
Variant = tuple[str, dict[str, Any]]


def score(ranked: Sequence[Sequence[str]], relevant: Sequence[set[str]]) -> dict[str, float]:
    """hit@3, hit@10 and MRR@10 of ranked key lists against the relevant keys of each task."""
    hit3 = hit10 = mrr = 0.0
    for keys, wanted in zip(ranked, relevant, strict=True):
        for rank, key in enumerate(keys[:10], start=1):
            if key in wanted:
                hit10 += 1
                hit3 += rank <= 3
                mrr += 1 / rank
                break
    n = max(1, len(ranked))
    return {"hit@3": hit3 / n, "hit@10": hit10 / n, "mrr@10": mrr / n}


PROTOCOL_MODULES = (
    "baselines.py",
    "quality.py",
    "quality_rehearsal.py",
    "quality_session.py",
    "replay.py",
)
"""The benchmark's own modules whose code decides what is recalled and how it is scored."""


def engine_fingerprint() -> str:
    """A digest of the engine's source and of the protocol's (:data:`PROTOCOL_MODULES`):
    cached results are reused only for the same engine scored the same way."""
    digest = hashlib.sha1()
    root = Path(__file__).resolve().parents[1]
    engine = sorted((root / "recall").rglob("*.py"))
    for path in [*engine, *(root / "bench" / name for name in PROTOCOL_MODULES)]:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


class Cache:
    """Per-task results of one engine version, appended as they are made (resumable)."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        """Load the results of ``fingerprint`` already in ``path``."""
        self.path = path
        self.fingerprint = fingerprint
        self.done: dict[tuple[str, str], dict[str, Any]] = {}
        if path.exists():
            for line in path.read_text().splitlines():
                row = json.loads(line)
                if row.get("fp") == fingerprint:
                    self.done[(row["mode"], row["task"])] = row

    def get(self, mode: str, task: str) -> dict[str, Any] | None:
        """The cached row of ``task`` in ``mode``, if any."""
        return self.done.get((mode, task))

    def put(self, mode: str, task: str, row: dict[str, Any]) -> None:
        """Record ``row`` for ``task`` in ``mode``."""
        row = {"fp": self.fingerprint, "mode": mode, "task": task, **row}
        self.done[(mode, task)] = row
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")


def _load(folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    meta = json.loads((folder / "meta.json").read_text())
    commits = list(read_commits(folder / "commits.jsonl"))
    tasks = [json.loads(line) for line in (folder / "tasks.jsonl").read_text().splitlines()]
    return meta, commits, tasks


def _records(commits: Sequence[dict[str, Any]]) -> list[MemoryRecord]:
    return [
        MemoryRecord(c["sha"], c["subject"], c["body"], tuple(c["files"]), int(c["ts"]))
        for c in commits
    ]


def _relevant_ids(task: dict[str, Any], below: int, id_of_sha: dict[str, str]) -> set[str]:
    """Memory ids of the task's relevant commits older than ``below``."""
    return {
        id_of_sha[sha]
        for sha, idx in zip(task["relevant"], task["relevant_idx"], strict=True)
        if idx < below and sha in id_of_sha
    }


def _twins(id_of_sha: dict[str, str]) -> dict[str, set[str]]:
    """Commits stored as each memory: a commit repeating an earlier one's subject and body
    is deduplicated into it, so the memory stands for both (for the baselines too)."""
    twins: dict[str, set[str]] = {}
    for sha, memory_id in id_of_sha.items():
        twins.setdefault(memory_id, set()).add(sha)
    return twins


def _injected(hits: Sequence[Any]) -> int:
    return sum(len(h.memory.summary) + len(h.receipt) + 12 for h in hits[:3] if h.strong)


def _row(name: str, metrics: dict[str, float], chars: float | None = None) -> tuple[str, ...]:
    cells = [name, f"{metrics['hit@3']:.2f}", f"{metrics['hit@10']:.2f}"]
    cells.append(f"{metrics['mrr@10']:.2f}")
    return (*cells, "" if chars is None else f"{chars:.0f}")


def _mean(values: Sequence[float]) -> float:
    return sum(values) / max(1, len(values))


def run_eval(folder: Path, work: Path, fingerprint: str) -> dict[str, Any]:
    """Score Tether (at each task's moment, and at the cut) and the baselines on the eval
    tasks of one dataset; print its table; return the headline figures."""
    meta, commits, tasks = _load(folder)
    cut = int(meta["cut_idx"])
    tasks = sorted((t for t in tasks if t["split"] == "eval"), key=lambda t: t["task_idx"])
    base = work / folder.name
    repo = base / "repo"
    started = time.perf_counter()
    replay_records(iter(commits), repo, max(t["task_idx"] for t in tasks))
    replay_s = time.perf_counter() - started
    before = commits[:cut]
    marker = base / "imported.json"
    session = Session(repo, base / "home", fresh=not marker.exists())
    started = time.perf_counter()
    if marker.exists():
        session.id_of_sha = json.loads(marker.read_text())
    else:
        session.import_commits(before)
        marker.write_text(json.dumps(session.id_of_sha))
    import_s = time.perf_counter() - started
    cache = Cache(base / "results.jsonl", fingerprint)
    ids = session.id_of_sha
    relevant_ids = [_relevant_ids(t, cut, ids) for t in tasks]

    def answer(mode: str, task: dict[str, Any], moment: int, date: str) -> dict[str, Any]:
        row = cache.get(mode, task["task_sha"])
        if row is None:
            refresh_ms = session.at(moment)
            with clock(date):
                started = time.perf_counter()
                hits = session.recall(task["prompt"], task["touched"])
                recall_ms = (time.perf_counter() - started) * 1000
            row = {
                "ids": [h.memory.id for h in hits],
                "chars": _injected(hits),
                "refresh_ms": refresh_ms,
                "recall_ms": recall_ms,
                "receipts": [h.receipt for h in hits[:3]],
            }
            cache.put(mode, task["task_sha"], row)
        return row

    cut_rows = [answer("cut", t, cut - 1, meta["cut_date"]) for t in tasks]
    moment_rows = [answer("moment", t, t["task_idx"] - 1, t["date"]) for t in tasks]
    refreshes = [r["refresh_ms"] for r in moment_rows]
    recalls = [r["recall_ms"] for r in moment_rows]

    figures = {
        "moment": score([r["ids"] for r in moment_rows], relevant_ids),
        "cut": score([r["ids"] for r in cut_rows], relevant_ids),
        "chars": _mean([r["chars"] for r in moment_rows]),
    }
    rows = [
        _row("**Tether**, repository at the task's moment", figures["moment"], figures["chars"]),
        _row(
            "Tether, repository at the cut",
            figures["cut"],
            _mean([r["chars"] for r in cut_rows]),
        ),
    ]
    records = _records(before)
    twins = _twins(ids)
    named = [
        {sha for sha, idx in zip(t["relevant"], t["relevant_idx"], strict=True) if idx < cut}
        for t in tasks
    ]
    relevant = [
        shas.union(*(twins[i] for i in wanted))
        for shas, wanted in zip(named, relevant_ids, strict=True)
    ]
    baselines: dict[str, dict[str, float]] = {}
    for name, ranker in make_rankers(records, Renames(commits)).items():
        # only the rename-following baseline depends on the moment
        for label, at in (("at the task's moment", True), ("at the cut", False)):
            if name != BEST_BASELINE and not at:
                continue
            picks = [
                ranker(t["prompt"], t["touched"], None, t["task_idx"] if at else cut) for t in tasks
            ]
            keys = [[records[i].key for i in p] for p in picks]
            chars = [
                sum(len(records[i].summary) + len(records[i].details) for i in p[:3]) for p in picks
            ]
            metrics = score(keys, relevant)
            rows.append(
                _row(f"{name} ({label})" if name == BEST_BASELINE else name, metrics, _mean(chars))
            )
            if name == BEST_BASELINE:
                baselines["moment" if at else "cut"] = metrics
    figures["baseline"] = baselines
    figures["refresh_ms"] = refreshes
    print(
        f"\n{folder.name}: {len(before):,} memories, {len(tasks)} eval tasks; "
        f"replay {replay_s:.1f} s, import {import_s:.1f} s; at each task's moment: "
        f"{sum(1 for r in refreshes if r > 0)} incremental genome refreshes, median "
        f"{statistics.median(refreshes):.0f} ms, total {sum(refreshes) / 1000:.1f} s; "
        f"recall median {statistics.median(recalls):.1f} ms (cached rows keep their first timing)"
    )
    print_table(
        f"{folder.name} eval: hit@3 / hit@10 / MRR@10 / characters injected for the top 3",
        ("ranker", "hit@3", "hit@10", "MRR@10", "chars"),
        rows,
    )
    session.close()
    return figures


def _sample(tasks: list[dict[str, Any]], count: int | None) -> list[dict[str, Any]]:
    """``count`` tasks evenly spread over ``tasks`` (all when None or more)."""
    if count is None or count >= len(tasks):
        return tasks
    step = len(tasks) / count
    return [tasks[int(i * step)] for i in range(count)]


DUMP_DEPTH = 50
"""Candidates per task written by ``--dump`` unless ``--dump-depth`` says otherwise (the
learned ranker reorders these)."""


def run_tune(
    folder: Path,
    work: Path,
    variants: Sequence[Variant],
    sample: int | None,
    chunk: float,
    dump: Path | None = None,
    dump_depth: int = DUMP_DEPTH,
) -> dict[str, dict[str, float]]:
    """Score every variant on the pre-cut tasks of one dataset, each task against the
    memories older than itself, with the repository at its moment; print and return hit@3,
    hit@10 and MRR@10 per variant (and the rename-following baseline). With ``dump``, the
    first variant's best ``DUMP_DEPTH`` candidates of each task, with the signals that
    scored them and whether they are relevant, are appended there as JSON lines (the
    training data of ``recall.ranking.fit_learned``); ``dump_depth`` candidates instead, and
    each line says whether it holds every candidate the engine found (``complete``)."""
    from recall.ranking.diversify import spread

    _meta, commits, tasks = _load(folder)
    tasks = sorted((t for t in tasks if t["split"] == "pre_cut"), key=lambda t: t["task_idx"])
    tasks = _sample(tasks, sample)
    base = work / folder.name
    key = json.dumps([engine_fingerprint(), list(variants), sample, chunk], sort_keys=True)
    saved = base / "tune.json"
    if dump is None and saved.exists() and json.loads(saved.read_text()).get("key") == key:
        results = json.loads(saved.read_text())["results"]
        _print_tune(folder.name, len(tasks), "(cached)", results)
        return results
    repo = base / "tune-repo"
    replay_records(iter(commits), repo, max(t["task_idx"] for t in tasks))
    session = Session(repo, base / "tune-home", fresh=True)
    ranked: dict[str, list[list[str]]] = {name: [] for name, _ in variants}
    relevant: list[set[str]] = []
    first_idx: dict[str, int] = {}  # memory id -> history index of the commit it was made from
    imported = 0
    import_s = 0.0
    refreshes: list[float] = []
    span = max(1, round(chunk * len(commits)))
    afresh = any(changes for _, changes in variants)  # each variant ranks on its own
    for task in tasks:
        upto = task["task_idx"]
        if upto > imported:
            # memories go in by chunks (an import costs a pass over the store); the ones of a
            # chunk newer than a task are present while it recalls, and left out of its answer
            end = max(t["task_idx"] for t in tasks if t["task_idx"] <= upto + span)
            started = time.perf_counter()
            session.import_commits(commits[imported:end])
            import_s += time.perf_counter() - started
            for commit in commits[imported:end]:
                first_idx.setdefault(session.id_of_sha[commit["sha"]], commit["idx"])
            imported = end
        refreshes.append(session.at(upto - 1))
        relevant.append(_relevant_ids(task, upto, session.id_of_sha))
        newer = imported - upto
        with clock(task["date"]):
            for number, (name, changes) in enumerate(variants):
                dumped = dump is not None and number == 0
                depth = max(dump_depth, 10) if dumped else 10
                with patched(changes):
                    # the spread over files placed among the older memories only, as in a
                    # store that holds no newer one (they would take part in it otherwise)
                    with patched({"REDUNDANCY_PENALTY": 0.0}):
                        hits = session.recall(
                            task["prompt"], task["touched"], limit=depth + newer, afresh=afresh
                        )
                    older = spread([h for h in hits if first_idx[h.memory.id] < upto])
                ranked[name].append([h.memory.id for h in older[:10]])
                if dumped:
                    # fewer hits than asked for: the engine found no more candidates
                    complete = len(hits) < depth + newer
                    _dump(dump, folder.name, task, relevant[-1], older[:depth], complete)
    session.close()
    results = {name: score(ranked[name], relevant) for name, _ in variants}
    records = _records(commits[: max(t["task_idx"] for t in tasks)])
    ranker = make_rankers(records, Renames(commits))[BEST_BASELINE]
    twins = _twins(session.id_of_sha)
    keys = []
    wanted = []
    for task, ids in zip(tasks, relevant, strict=True):
        pick = ranker(task["prompt"], task["touched"], task["task_idx"], task["task_idx"])
        keys.append([records[i].key for i in pick])
        shas = {s for s, i in zip(task["relevant"], task["relevant_idx"], strict=True)}
        wanted.append(shas.union(*(twins[i] for i in ids)))
    results["baseline: " + BEST_BASELINE] = score(keys, wanted)
    cost = (
        f"import {import_s:.1f} s; {len(refreshes)} genome refreshes, median "
        f"{statistics.median(refreshes):.0f} ms, total {sum(refreshes) / 1000:.1f} s"
    )
    saved.write_text(json.dumps({"key": key, "results": results}))
    _print_tune(folder.name, len(tasks), cost, results)
    return results


def _dump(
    path: Path,
    history: str,
    task: dict[str, Any],
    relevant: set[str],
    hits: Any,
    complete: bool = False,
) -> None:
    """Append one task's candidates (id, signals, relevant) as a JSON line to ``path``;
    ``complete`` when they are every candidate the engine found for it."""
    row = {
        "history": history,
        "task": task["task_sha"],
        "complete": complete,
        "candidates": [
            {"id": h.memory.id, "relevant": h.memory.id in relevant, "signals": h.signals}
            for h in hits
        ],
    }
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row, sort_keys=True) + "\n")


def _print_tune(
    name: str,
    count: int,
    cost: str,
    results: dict[str, dict[str, float]],
    label: str = "pre-cut",
    where: str = "",
) -> None:
    print(f"\n{name} {label}: {where}{count} tasks; {cost}")
    print_table(
        f"{name} {label}: hit@3 / hit@10 / MRR@10",
        ("ranker", "hit@3", "hit@10", "MRR@10", ""),
        [
            (ranker, *(f"{metrics[k]:.3f}" for k in ("hit@3", "hit@10", "mrr@10")), "")
            for ranker, metrics in results.items()
        ],
    )


def leave_one_out(results: dict[str, dict[str, dict[str, float]]], names: Sequence[str]):
    """For each history: the variant with the best mean pre-cut hit@3 on the other ones, and
    its hit@3 on the held-out history beside the shipped one's."""
    rows = []
    histories = list(results)
    for held in histories:
        others = [h for h in histories if h != held]
        if not others:
            continue
        best = max(names, key=lambda n: _mean([results[h][n]["hit@3"] for h in others]))
        rows.append(
            (
                held,
                best,
                f"{results[held][best]['hit@3']:.3f}",
                f"{results[held][names[0]]['hit@3']:.3f}",
            )
        )
    print_table(
        "leave one history out: variant chosen on the other histories (pre-cut hit@3)",
        ("held out", "chosen", "its hit@3 there", f"{names[0]} there"),
        rows,
    )


def _variant(text: str) -> Variant:
    """``NAME:CONST=VALUE,CONST=VALUE`` with Python literal values (a value may itself hold
    commas: a tuple, a list or a dict)."""
    name, _, body = text.partition(":")
    source = f"variant({body})"  # the assignments read as keyword arguments of a call
    try:
        call = ast.parse(source, mode="eval").body
    except SyntaxError:
        raise argparse.ArgumentTypeError(
            f"{body!r}: expected CONST=VALUE,CONST=VALUE with Python literal values"
        ) from None
    if (
        not isinstance(call, ast.Call)
        or call.args
        or any(keyword.arg is None for keyword in call.keywords)
    ):
        raise argparse.ArgumentTypeError(f"{body!r}: expected CONST=VALUE")
    changes: dict[str, Any] = {}
    for keyword in call.keywords:
        try:
            changes[str(keyword.arg)] = ast.literal_eval(keyword.value)
        except ValueError:
            value = ast.get_source_segment(source, keyword.value)
            raise argparse.ArgumentTypeError(f"{value!r} is not a Python literal") from None
    return name.strip(), changes


def _fractions(text: str) -> list[float]:
    """``0.6,0.8``: fractions of the cut, each strictly between 0 and 1."""
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected numbers like 0.6,0.8") from None
    if not values or any(not 0.0 < v < 1.0 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r}: each fraction must be between 0 and 1")
    return values


def main(argv: list[str] | None = None) -> int:
    """Run the quality benchmark over every dataset folder (or the named ones)."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality")
    default = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "data"
    parser.add_argument("--data", type=Path, default=default, help="folder of datasets")
    parser.add_argument("names", nargs="*", help="dataset names (default: all four)")
    parser.add_argument("--history", action="append", default=[], help="a dataset (repeatable)")
    parser.add_argument("--keep", type=Path, help="work here and keep it (resumable)")
    parser.add_argument("--tune", action="store_true", help="score the pre-cut tasks")
    parser.add_argument(
        "--variant",
        action="append",
        type=_variant,
        default=[],
        help=(
            "with --tune or --rehearse: NAME:CONST=VALUE,... of recall.ranking.weights, "
            "each value a Python literal (a dict or tuple too; quote it for the shell); "
            "repeatable"
        ),
    )
    parser.add_argument(
        "--rehearse",
        type=_fractions,
        metavar="F,F,...",
        help="score pre-cut tasks as the eval does, the store frozen at these fractions of "
        "the cut (bench.quality_rehearsal); --variant and --sample apply",
    )
    parser.add_argument(
        "--sample", type=int, help="with --tune or --rehearse: at most N tasks per history (cut)"
    )
    parser.add_argument(
        "--dump",
        type=Path,
        help="with --tune or --rehearse: append each task's candidates and their signals "
        "to this file",
    )
    parser.add_argument(
        "--dump-depth",
        type=int,
        default=DUMP_DEPTH,
        help=f"with --dump: candidates written per task (default {DUMP_DEPTH}; a large one "
        "writes every candidate, for bench.quality_offline --reach)",
    )
    parser.add_argument(
        "--chunk",
        type=float,
        default=0.01,
        help="with --tune: share of the history imported at once (default 0.01)",
    )
    args = parser.parse_args(argv)
    if args.tune and args.rehearse:
        parser.error("--tune and --rehearse are two protocols: give one of them")
    if args.dump_depth < 1:
        parser.error(f"--dump-depth {args.dump_depth}: give at least 1 candidate per task")
    if not args.data.is_dir():
        print(f"no dataset folder at {args.data}; pass --data", file=sys.stderr)
        return 2
    wanted = [*args.names, *args.history] or list(HISTORIES)
    folders = [args.data / name for name in wanted]
    for folder in folders:
        if not (folder / "meta.json").exists():
            print(f"no dataset {folder.name} in {args.data}", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="tether-quality-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.tune or args.rehearse:
            variants = [("shipped", {}), *args.variant]
            if args.rehearse:
                from bench.quality_rehearsal import run_rehearsal

                tuned = {
                    f.name: run_rehearsal(
                        f, work, variants, args.rehearse, args.sample, args.dump, args.dump_depth
                    )
                    for f in folders
                }
            else:
                tuned = {
                    f.name: run_tune(
                        f, work, variants, args.sample, args.chunk, args.dump, args.dump_depth
                    )
                    for f in folders
                }
            names = [name for name, _ in variants]
            summary = [
                (
                    name,
                    *(f"{tuned[h][name]['hit@3']:.3f}" for h in tuned),
                    f"{_mean([tuned[h][name]['hit@3'] for h in tuned]):.3f}",
                )
                for name in [*names, "baseline: " + BEST_BASELINE]
            ]
            frozen = "rehearsal hit@3 (pre-cut tasks, store frozen)"
            title = frozen if args.rehearse else "pre-cut hit@3"
            print_table(title, ("ranker", *tuned, "mean"), summary)
            if len(variants) > 1:
                leave_one_out(tuned, names)
        else:
            fingerprint = engine_fingerprint()
            figures = {f.name: run_eval(f, work, fingerprint) for f in folders}
            print_table(
                "eval hit@3: Tether at the task's moment (at the cut) against the best "
                "baseline, renames followed up to the task (up to the cut)",
                ("history", "Tether", "best baseline", "margin"),
                [
                    (
                        name,
                        f"{fig['moment']['hit@3']:.2f} ({fig['cut']['hit@3']:.2f})",
                        f"{fig['baseline']['moment']['hit@3']:.2f} "
                        f"({fig['baseline']['cut']['hit@3']:.2f})",
                        f"{fig['moment']['hit@3'] - fig['baseline']['moment']['hit@3']:+.2f}",
                    )
                    for name, fig in figures.items()
                ],
            )
    print_command()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
