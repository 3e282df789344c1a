"""The benchmark replay builds a repository whose history the genome reads back exactly."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from bench.replay import replay
from recall.genome import Genome, Neighbour

RECORDS = [
    {"idx": 0, "files": ["a.c", "b.c", "dir with space/c.h"], "renames": [], "deleted": []},
    {"idx": 1, "files": ["a.c", "b.c"], "renames": [], "deleted": []},
    {"idx": 2, "files": ["a.c", "src/b.c"], "renames": [["b.c", "src/b.c"]], "deleted": []},
    {"idx": 3, "files": ["a.c", "dir with space/c.h"], "renames": [], "deleted": ["a.c"]},
    {"idx": 4, "files": ["src/b.c", "new.c"], "renames": [["ghost.c", "new.c"]], "deleted": []},
]


def _write(path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for n, record in enumerate(RECORDS):
            full = {"sha": f"{n:040x}", "ts": 1_700_000_000 + 60 * n, "subject": f"c{n}"}
            handle.write(json.dumps({**full, "body": "", **record}) + "\n")
    return path


def test_replay_round_trip(tmp_path: Path, open_genome: Callable[..., Genome]) -> None:
    commits = _write(tmp_path / "commits.jsonl")
    repo = replay(commits, tmp_path / "replayed", upto_idx=3)
    genome = open_genome(repo)
    first = genome.refresh()
    assert first.commits_read == 3
    assert first.renames == 1
    assert genome.renamed_to("b.c") == "src/b.c"
    assert replay(commits, repo) == repo
    second = genome.refresh()
    assert second.mode == "incremental"
    assert second.commits_read == 2
    assert not genome.exists("a.c")
    assert genome.exists("new.c")
    assert genome.neighbours("src/b.c", 3, include_missing=True) == [
        Neighbour("a.c", 3, 3 / 4, 4),
        Neighbour("dir with space/c.h", 1, 1 / 4, 4),
        Neighbour("new.c", 1, 1 / 4, 4),
    ]
    marks = (repo / ".git" / "replay.marks").read_text().split()
    assert marks[::2] == [":1", ":2", ":3", ":4", ":5"]
