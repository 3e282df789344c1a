"""An import runs without the cycle collector (its drafts, memories and results live to the
end, so every collection would walk a growing heap for nothing), drafting child included, and
gives the collector back as it found it, whatever happens."""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_repo

from recall import forked
from recall.importer import import_lines
from recall.locations import project_location
from recall.store import MemoryStore

HERE = 10**9  # draft_elsewhere_from: every line drafted in this process
ELSEWHERE = 0  # draft_elsewhere_from: drafted in a forked child (but the first chunk)


def _lines(count: int) -> list[str]:
    return [
        json.dumps(
            {
                "summary": f"change {n} to the parser of record {n % 97}",
                "details": f"the reader of block {n} keeps its offsets; see issue {n * 7}",
                "category": "context",
                "files": [f"src/part{n % 13}.py", f"src/part{n}/mod.py"],
            }
        )
        for n in range(count)
    ]


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every cycle collection made while the test runs."""
    made: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            made.append(info["generation"])

    was_enabled = gc.isenabled()
    gc.enable()
    gc.callbacks.append(seen)
    try:
        yield made
    finally:
        gc.callbacks.remove(seen)
        if not was_enabled:
            gc.disable()


def _store(repo: Path) -> MemoryStore:
    return MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)


def test_an_import_makes_no_cycle_collection(tmp_path: Path, collections: list[int]) -> None:
    repo = make_repo(tmp_path)
    store = _store(repo)
    gc.collect()
    collections.clear()
    results = import_lines(
        store,
        _lines(3000),
        lambda p: store.normalize_input(p, repo),
        "t",
        draft_elsewhere_from=HERE,
    )
    assert sum(r.status == "created" for r in results) == 3000
    # none while it ran; at most one as the collector resumes (it had hundreds to make)
    assert len(collections) <= 1
    assert gc.isenabled()  # given back
    store.close()


@pytest.mark.skipif(not forked.can_fork(), reason="drafting forks on Linux only")
def test_the_drafting_child_runs_without_the_collector(
    tmp_path: Path, collections: list[int]
) -> None:
    repo = make_repo(tmp_path)
    store = _store(repo)
    seen = repo / "seen"

    def normalize(raw: str) -> str:
        with seen.open("a") as out:  # where the line was drafted, and the collector's state
            out.write(f"{os.getpid()} {int(gc.isenabled())}\n")
        return store.normalize_input(raw, repo)

    import_lines(store, _lines(1500), normalize, "t", draft_elsewhere_from=ELSEWHERE)
    states = {tuple(map(int, line.split())) for line in seen.read_text().splitlines()}
    assert {pid for pid, _ in states} - {os.getpid()}  # some lines drafted in the child
    assert {enabled for _, enabled in states} == {0}
    assert gc.isenabled()
    store.close()


def test_the_collector_is_given_back_as_it_was(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    store = _store(repo)
    was_enabled = gc.isenabled()
    try:
        gc.disable()
        import_lines(store, _lines(5), lambda p: store.normalize_input(p, repo), "t")
        assert not gc.isenabled()  # a caller that had it off keeps it off
        gc.enable()

        def failing(raw: str) -> str:
            raise OSError("the disk went away")

        with pytest.raises(OSError):
            import_lines(store, _lines(5), failing, "t", draft_elsewhere_from=HERE)
        assert gc.isenabled()  # back on after an import that failed
    finally:
        if not was_enabled:
            gc.disable()
        store.close()
