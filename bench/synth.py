"""Generated memories with realistic shapes, for benchmarks (deterministic for a given seed)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

_AREAS = ("auth", "api", "store", "ui", "sync", "billing", "search", "build", "db", "net")
_LEAVES = ("routes", "middleware", "session", "client", "cache", "schema", "worker", "utils")
_EXTS = (".ts", ".py", ".go", ".rs", ".tsx")
_VERBS = ("must", "never", "always", "should not", "has to")
_ACTIONS = (
    "go through safeRename before writing",
    "retry the request with backoff",
    "hold the store lock while flushing",
    "normalize paths at the database boundary",
    "use bun instead of npm for installs",
    "invalidate the cache after a schema change",
    "escape user text before it reaches MATCH",
    "close the cursor before committing",
)
_CATEGORIES = ("gotcha", "decision", "pref", "context")


def repo_paths(count: int, seed: int = 7) -> list[str]:
    """``count`` distinct repo-relative file paths spread over nested areas."""
    rng = random.Random(seed)
    paths: set[str] = set()
    while len(paths) < count:
        depth = rng.randint(1, 3)
        parts = ["src", rng.choice(_AREAS)]
        parts += [f"{rng.choice(_LEAVES)}{rng.randint(0, 40)}" for _ in range(depth - 1)]
        parts.append(f"{rng.choice(_LEAVES)}{rng.randint(0, 99)}{rng.choice(_EXTS)}")
        paths.add("/".join(parts))
    return sorted(paths)


def memories(count: int, seed: int = 11, files_pool: int | None = None) -> Iterator[dict]:
    """Yield ``count`` import records (summary, details, category, files, created)."""
    rng = random.Random(seed)
    pool = repo_paths(files_pool or max(50, count // 5), seed)
    for index in range(count):
        area = rng.choice(_AREAS)
        summary = f"{area}: {rng.choice(_VERBS)} {rng.choice(_ACTIONS)} (#{index})"
        details = " ".join(rng.choice(_ACTIONS) for _ in range(rng.randint(1, 5)))
        files = rng.sample(pool, rng.choice((1, 1, 1, 2, 3)))
        day = 1 + index % 28
        yield {
            "summary": summary,
            "details": details,
            "category": rng.choice(_CATEGORIES),
            "files": files,
            "created": f"2025-{1 + index % 12:02d}-{day:02d}T12:00:00+00:00",
        }


def write_jsonl(path: Path, count: int, seed: int = 11) -> Path:
    """Write ``count`` generated records to ``path`` as JSON Lines."""
    with path.open("w", encoding="utf-8") as handle:
        for record in memories(count, seed):
            handle.write(json.dumps(record) + "\n")
    return path
