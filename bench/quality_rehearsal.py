"""The eval protocol rehearsed on pre-cut tasks: a store frozen at an earlier cut.

The eval tasks are fixes made after the cut of bugs brought in before it, answered from a
store that stops at the cut: their relevant memory is years old (median 3.6–4.5 years on the
four shared histories), while a pre-cut task scored against every memory older than itself
(``--tune``) mostly goes back weeks or months. A ranking tuned on the latter can learn what
does not hold for the former. A rehearsal puts the cut earlier: at ``fraction`` of the real
cut, the memories before it are imported and frozen, and the ``pre_cut`` tasks made after it
whose relevant commit is before it are answered as eval tasks are (the repository at the
task's moment, the clock at its date), beside the rename-following baseline of the same
run. Only pre-cut tasks are used, so the figures may guide a choice; several fractions give
more tasks (a task can be rehearsed at several cuts, against a larger store each time).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.baselines import Renames, make_rankers
from bench.quality_session import Session, clock, patched
from bench.replay import replay_records


def rehearsal_cut(meta: dict[str, Any], fraction: float) -> int:
    """The history index of the rehearsal's cut: ``fraction`` of the real cut's."""
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"rehearsal fraction {fraction}: give a number between 0 and 1")
    return int(int(meta["cut_idx"]) * fraction)


def rehearsal_tasks(tasks: Sequence[dict[str, Any]], cut: int) -> list[dict[str, Any]]:
    """The pre-cut tasks made at or after ``cut`` with a relevant commit before it, oldest
    first: the ones a store frozen at ``cut`` can answer, as the eval tasks are chosen."""
    chosen = [
        t
        for t in tasks
        if t["split"] == "pre_cut"
        and t["task_idx"] >= cut
        and any(idx < cut for idx in t["relevant_idx"])
    ]
    return sorted(chosen, key=lambda t: t["task_idx"])


def run_rehearsal(
    folder: Path,
    work: Path,
    variants: Sequence[tuple[str, dict[str, Any]]],
    fractions: Sequence[float],
    sample: int | None,
    dump: Path | None = None,
    dump_depth: int = 50,
) -> dict[str, dict[str, float]]:
    """Score every variant, and the rename-following baseline, on one dataset's rehearsals
    at each of ``fractions``; print and return hit@3, hit@10 and MRR@10 over all of them.
    With ``dump``, the first variant's best ``dump_depth`` candidates of each task are
    appended there as ``bench.quality --tune --dump`` writes them (a task rehearsed at two
    cuts has two lines)."""
    from bench import quality as q

    meta, commits, tasks = q._load(folder)
    cuts = sorted({rehearsal_cut(meta, f) for f in fractions})
    chosen = {cut: q._sample(rehearsal_tasks(tasks, cut), sample) for cut in cuts}
    count = sum(len(c) for c in chosen.values())
    base = work / folder.name
    key = json.dumps([q.engine_fingerprint(), list(variants), cuts, sample], sort_keys=True)
    saved = base / "rehearsal.json"
    if dump is None and saved.exists() and json.loads(saved.read_text()).get("key") == key:
        results = json.loads(saved.read_text())["results"]
        _print(folder.name, cuts, count, "(cached)", results)
        return results
    last = max((t["task_idx"] for c in chosen.values() for t in c), default=cuts[-1])
    repo = base / "rehearsal-repo"
    replay_records(iter(commits), repo, last)
    session = Session(repo, base / "rehearsal-home", fresh=True)
    renames = Renames(commits)
    ranked: dict[str, list[list[str]]] = {name: [] for name, _ in variants}
    relevant: list[set[str]] = []
    baseline: list[list[str]] = []
    wanted: list[set[str]] = []
    imported, refreshes, started = 0, [], time.perf_counter()
    afresh = any(changes for _, changes in variants)  # each variant ranks on its own
    for cut in cuts:
        # the stores are nested: each cut adds the memories up to it and freezes there
        session.import_commits(commits[imported:cut])
        imported = cut
        records = q._records(commits[:cut])
        ranker = make_rankers(records, renames)[q.BEST_BASELINE]
        twins = q._twins(session.id_of_sha)
        for task in chosen[cut]:
            refreshes.append(session.at(task["task_idx"] - 1))
            ids = q._relevant_ids(task, cut, session.id_of_sha)
            relevant.append(ids)
            with clock(task["date"]):
                for number, (name, changes) in enumerate(variants):
                    depth = max(dump_depth, 10) if dump is not None and number == 0 else 10
                    with patched(changes):
                        hits = session.recall(
                            task["prompt"], task["touched"], limit=depth, afresh=afresh
                        )
                    ranked[name].append([h.memory.id for h in hits[:10]])
                    if dump is not None and number == 0:
                        q._dump(dump, folder.name, task, ids, hits, len(hits) < depth)
            # the baseline follows the renames made before the task, as at the eval
            pick = ranker(task["prompt"], task["touched"], None, task["task_idx"])
            baseline.append([records[i].key for i in pick])
            shas = {s for s, i in zip(task["relevant"], task["relevant_idx"], strict=True)}
            wanted.append(shas.union(*(twins[i] for i in ids)))
    session.close()
    results = {name: q.score(ranked[name], relevant) for name, _ in variants}
    results["baseline: " + q.BEST_BASELINE] = q.score(baseline, wanted)
    cost = (
        f"{len(refreshes)} genome refreshes, median {statistics.median(refreshes or [0]):.0f} "
        f"ms; {time.perf_counter() - started:.0f} s in all"
    )
    saved.write_text(json.dumps({"key": key, "results": results}))
    _print(folder.name, cuts, count, cost, results)
    return results


def _print(
    name: str, cuts: Sequence[int], count: int, cost: str, results: dict[str, dict[str, float]]
) -> None:
    from bench import quality as q

    where = f"cuts at {', '.join(map(str, cuts))}; "
    q._print_tune(name, count, cost, results, label="rehearsal", where=where)
