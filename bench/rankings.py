"""Saving the ranked ids of a benchmark's queries and comparing a later run with them.

A refactor of the recall path must not change what it returns: run a benchmark with
``--ranking-out FILE`` before, with ``--ranking-check FILE`` after.
"""

from __future__ import annotations

import json
from pathlib import Path


def save(path: Path, ranked: dict[str, list[list[str]]]) -> None:
    """Write every query's ranked ids under its set's name (other sets in the file kept)."""
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(ranked)
    path.write_text(json.dumps(data))


def check(path: Path, ranked: dict[str, list[list[str]]]) -> int:
    """Print, per set, how many queries rank exactly as saved; return how many differ."""
    saved = json.loads(path.read_text())
    differing = 0
    for name, lists in ranked.items():
        if name not in saved:
            print(f"\n{name}: no saved ranking in {path}")
            differing += len(lists)
            continue
        before = saved[name]
        if len(before) != len(lists):
            print(f"\n{name}: {len(lists)} queries, {len(before)} saved: not comparable")
            differing += len(lists)
            continue
        changed = [i for i, (a, b) in enumerate(zip(before, lists, strict=True)) if a != b]
        differing += len(changed)
        note = f"; differing queries: {changed[:20]}" if changed else ""
        print(f"\n{name}: {len(lists) - len(changed)} of {len(lists)} rankings as saved{note}")
    return differing
