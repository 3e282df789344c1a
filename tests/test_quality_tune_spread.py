"""The tuning pass places the spread over files among the memories older than each task.

A pre-cut task is answered from a store that also holds the newer memories of its import
chunk, which are left out of its answer. The spread (``recall.ranking.diversify``) must be
placed among the answer's memories only, as in a store that holds no newer one: a newer note
on the same files must not take score from an older one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.quality import run_tune
from recall.ranking import weights as W
from recall.ranking.diversify import SIGNAL, likeness

FILES = [
    ["src/parse.c", "src/queue.c"],
    ["src/parse.c"],
    ["src/parse.c", "src/lex.c"],
    ["src/parse.c", "src/queue.c"],
    ["src/parse.c", "src/queue.c"],
    ["src/parse.c", "src/lex.c"],
]
SUBJECTS = [
    "add the parser and its queue",
    "parser: handle the end of input",
    "lexer: add tokens to the parser",
    "parser: fix the queue at the end of input",
    "parser: queue the end of input again",
    "fix lexer tokens in the parser",
]


def _sha(n: int) -> str:
    """Commit ``n``'s id: its first eight characters (the memory's id) differ for each."""
    return f"{n + 1:08x}" * 5


def _dataset(folder: Path) -> None:
    folder.mkdir()
    commits = [
        {
            "idx": n,
            "sha": _sha(n),
            "date": f"2020-01-{n + 1:02d}T12:00:00+00:00",
            "ts": 1577880000 + n * 86400,
            "subject": subject,
            "body": "",
            "files": files,
            "renames": [],
            "deleted": [],
        }
        for n, (subject, files) in enumerate(zip(SUBJECTS, FILES, strict=True))
    ]
    tasks = [
        {
            "task_sha": commits[n]["sha"],
            "task_idx": n,
            "date": commits[n]["date"],
            "prompt": commits[n]["subject"],
            "touched": commits[n]["files"],
            "relevant": [commits[r]["sha"]],
            "relevant_idx": [r],
            "kind": "fixes",
            "split": "pre_cut",
        }
        for n, r in ((3, 0), (5, 2))
    ]
    (folder / "commits.jsonl").write_text("".join(json.dumps(c) + "\n" for c in commits))
    (folder / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    (folder / "meta.json").write_text(json.dumps({"name": folder.name, "cut_idx": 6}))


def test_the_spread_is_placed_among_the_older_memories_only(tmp_path: Path) -> None:
    _dataset(tmp_path / "tiny")
    dump = tmp_path / "dump.jsonl"
    # a chunk of half the history: the first task recalls with two newer memories present
    run_tune(tmp_path / "tiny", tmp_path / "work", [("shipped", {})], None, 0.5, dump)
    files = {_sha(n)[:8]: frozenset(f) for n, f in enumerate(FILES)}  # by memory id
    lines = [json.loads(line) for line in dump.read_text().splitlines()]
    assert [line["task"] for line in lines] == [_sha(3), _sha(5)]
    penalised = 0
    for line in lines:
        placed: list[frozenset[str]] = []
        for candidate in line["candidates"]:
            mine = files[candidate["id"]]
            expected = W.REDUNDANCY_PENALTY * max((likeness(mine, o) for o in placed), default=0)
            assert -candidate["signals"].get(SIGNAL, 0.0) == pytest.approx(expected)
            penalised += expected > 0
            placed.append(mine)
    assert penalised  # the check saw the spread at work
