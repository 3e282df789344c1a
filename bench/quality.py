"""Recall quality on real fix histories: Tether against the README's baselines, same tasks.

For each dataset: replay the history up to the cut into a real git repository, import the
memories before the cut through `tether import`, build the genome with `tether index`, run
every eval task through `tether recall --batch --no-record`, and score hit@3, hit@10,
MRR@10 and characters injected. The baselines are computed in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.baselines import MemoryRecord, make_rankers
from bench.replay import read_commits, replay_records
from bench.table import print_command, print_table


def _tether(repo: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "recall", *args],
        cwd=repo,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode not in (0, 1):
        raise RuntimeError(f"tether {' '.join(args)} failed: {result.stderr[-2000:]}")
    return result.stdout


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


def _row(name: str, metrics: dict[str, float], chars: float) -> tuple[str, ...]:
    return (
        name,
        f"{metrics['hit@3']:.2f}",
        f"{metrics['hit@10']:.2f}",
        f"{metrics['mrr@10']:.2f}",
        f"{chars:.0f}",
    )


def run_dataset(folder: Path, work: Path) -> list[tuple[str, ...]]:
    """Score Tether and every baseline on one dataset's eval tasks."""
    meta = json.loads((folder / "meta.json").read_text())
    cut = int(meta["cut_idx"])
    commits = list(read_commits(folder / "commits.jsonl"))
    tasks = [json.loads(line) for line in (folder / "tasks.jsonl").read_text().splitlines()]
    tasks = [t for t in tasks if t["split"] == "eval"]
    repo = work / folder.name
    started = time.perf_counter()
    replay_records(iter(commits), repo, cut)
    replay_s = time.perf_counter() - started

    env = dict(os.environ)
    env["TETHER_HOME"] = str(work / "global")
    env["TETHER_NOW"] = meta["cut_date"]
    before = [c for c in commits if c["idx"] < cut]
    lines = [
        json.dumps(
            {
                "summary": c["subject"] or "(no subject)",
                "details": c["body"],
                "category": "context",
                "files": c["files"],
                "created": c["date"],
                "id": c["sha"][:8],
                # public commit messages: "token = 83f1…" in a protocol's log is not a secret
                "allow_secret": True,
            }
        )
        for c in before
    ]
    _tether(repo, env, "init")
    started = time.perf_counter()
    imported = _tether(repo, env, "import", "-", "--json", stdin="\n".join(lines))
    import_s = time.perf_counter() - started
    results = [json.loads(line) for line in imported.splitlines() if line.strip()]
    # A commit whose subject, body and category repeat an earlier one's is stored as that
    # memory (dedupe by content), which then stands for both: each twin of a relevant commit
    # counts as relevant, for Tether and the baselines alike.
    id_of_sha = {before[r["line"] - 1]["sha"]: r["id"] for r in results if r.get("id")}
    twins: dict[str, set[str]] = {}
    for sha, memory_id in id_of_sha.items():
        twins.setdefault(memory_id, set()).add(sha)
    started = time.perf_counter()
    _tether(repo, env, "index", "--full", "--json")
    index_s = time.perf_counter() - started

    batch = "\n".join(json.dumps({"prompt": t["prompt"], "files": t["touched"]}) for t in tasks)
    started = time.perf_counter()
    out = _tether(repo, env, "recall", "--batch", "-", "--json", "--no-record", stdin=batch)
    recall_s = time.perf_counter() - started
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    # relevant commits at or after the cut cannot be retrieved and are ignored, as specified
    named = [
        {sha for sha, idx in zip(t["relevant"], t["relevant_idx"], strict=True) if idx < cut}
        for t in tasks
    ]
    relevant_ids = [{id_of_sha[sha] for sha in shas if sha in id_of_sha} for shas in named]
    relevant = [
        shas.union(*(twins[memory_id] for memory_id in ids))
        for shas, ids in zip(named, relevant_ids, strict=True)
    ]
    ranked = [[r["id"] for r in a["results"]] for a in answers]
    injected = [
        sum(len(r["summary"]) + len(r["receipt"]) + 12 for r in a["results"][:3] if r["strong"])
        for a in answers
    ]
    rows = [_row("**Tether** (summaries + receipts)", score(ranked, relevant_ids), _mean(injected))]

    records = [
        MemoryRecord(c["sha"], c["subject"], c["body"], tuple(c["files"]), int(c["ts"]))
        for c in before
    ]
    for name, ranker in make_rankers(records).items():
        picks = [[records[i].key for i in ranker(t["prompt"], t["touched"])] for t in tasks]
        chars = [
            sum(
                len(records[i].summary) + len(records[i].details)
                for i in ranker(t["prompt"], t["touched"])[:3]
            )
            for t in tasks
        ]
        rows.append(_row(name, score(picks, relevant), _mean(chars)))
    print(
        f"\n{folder.name}: {len(before):,} memories, {len(tasks)} eval tasks; "
        f"replay {replay_s:.1f} s, import {import_s:.1f} s, index {index_s:.1f} s, "
        f"recall {recall_s:.1f} s "
        f"(in-process recall p50 {_percentile([a['elapsed_ms'] for a in answers], 50):.1f} ms, "
        f"p99 {_percentile([a['elapsed_ms'] for a in answers], 99):.1f} ms)"
    )
    return rows


def _mean(values: Sequence[float]) -> float:
    return sum(values) / max(1, len(values))


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    """Run the quality benchmark over every dataset folder (or the named ones)."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality")
    default = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "data"
    parser.add_argument("--data", type=Path, default=default, help="folder of datasets")
    parser.add_argument("names", nargs="*", help="dataset names (default: all)")
    parser.add_argument("--keep", type=Path, help="build the repositories here and keep them")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"no dataset folder at {args.data}; pass --data", file=sys.stderr)
        return 2
    folders = sorted(p for p in args.data.iterdir() if (p / "meta.json").exists())
    if args.names:
        folders = [f for f in folders if f.name in args.names]
    with tempfile.TemporaryDirectory(prefix="tether-quality-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for folder in folders:
            if (work / folder.name).exists():
                print(f"{work / folder.name} exists; give --keep an empty folder", file=sys.stderr)
                return 2
            rows = run_dataset(folder, work)
            print_table(
                f"{folder.name}: hit@3 / hit@10 / MRR@10 / characters injected for the top 3",
                ("ranker", "hit@3", "hit@10", "MRR@10", "chars"),
                rows,
            )
    print_command()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
