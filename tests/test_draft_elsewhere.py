"""A large import drafts its lines (reads, checks, scans them for secrets, makes their vectors)
in a forked process while this one writes and indexes: the same results, files and index rows
as drafting them here, and the child's failures raised here at the chunk they came from."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from conftest import make_repo

from recall import forked, importer
from recall.importer import import_lines
from recall.locations import project_location
from recall.store import MemoryStore
from tests.test_write_behind import TABLES, _files, _lines

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="drafting forks on Linux only")

ELSEWHERE = 0  # draft_elsewhere_from: every import drafted in a forked process
HERE = 10**9  # draft_elsewhere_from: every import drafted in the importing process
SECRET = "token " + "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # joined: no literal


def test_the_drafting_constants_are_pinned() -> None:
    assert importer.DRAFT_ELSEWHERE_FROM == 1024
    assert importer.DRAFT_CHUNK == 256
    assert importer.DRAFT_FIRST == 32


def test_the_importing_process_drafts_only_the_first_few_lines_before_the_fork(
    tmp_path: Path,
) -> None:
    """The fork waits for the first chunk only: a small one, the rest drafted in the child."""
    repo = make_repo(tmp_path / "repo")
    count = 2 * importer.DRAFT_CHUNK
    lines = [
        json.dumps({"summary": f"note {n}", "category": "context", "files": [f"src/f{n}.py"]})
        for n in range(count)
    ]
    store, results = _import(repo, lines, ELSEWHERE)
    store.close()
    assert [r["status"] for r in results] == ["created"] * count
    drafted_here = (repo / "pids").read_text().split().count(str(os.getpid()))
    assert drafted_here == importer.DRAFT_FIRST  # one file each: one normalisation per line


def _import(repo: Path, lines: list[str], draft_elsewhere_from: int) -> tuple[MemoryStore, list]:
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)
    pids = repo / "pids"

    def normalize(raw: str) -> str:
        with pids.open("a") as out:  # where the drafting ran (a child's memory is its own)
            out.write(f"{os.getpid()}\n")
        return store.normalize_input(raw, repo)

    results = import_lines(
        store, lines, normalize, "tester", draft_elsewhere_from=draft_elsewhere_from
    )
    return store, [r.to_dict() for r in results]


def _drafted_by(repo: Path) -> set[int]:
    return {int(pid) for pid in (repo / "pids").read_text().split()}


def test_drafting_elsewhere_gives_the_same_results_files_and_rows(tmp_path: Path) -> None:
    lines = _lines(5 * importer.DRAFT_CHUNK + 30)
    lines[7] = json.dumps({"summary": SECRET, "category": "context", "id": "c0ffee00"})
    lines.insert(300, "   ")
    late = {"summary": "late", "category": "context", "files": ["src/late.py"], "id": "1a7e1a7e"}
    lines.append(json.dumps({**late, "created": "2024-02-01T10:00:00Z"}))
    here_repo, elsewhere_repo = make_repo(tmp_path / "here"), make_repo(tmp_path / "elsewhere")
    here, here_results = _import(here_repo, lines, HERE)
    elsewhere, elsewhere_results = _import(elsewhere_repo, lines, ELSEWHERE)
    assert _drafted_by(here_repo) == {os.getpid()}
    # the first chunk here (its modules loaded before the fork), the rest in one child
    assert len(_drafted_by(elsewhere_repo) - {os.getpid()}) == 1
    assert elsewhere_results == here_results
    refused = [r for r in here_results if r.get("record_id") == "c0ffee00"]
    assert len(refused) == 1 and "looks like a credential" in refused[0]["error"]
    assert {r["status"] for r in here_results} == {"created", "duplicate", "error"}
    assert _files(elsewhere) == _files(here)
    for name, sql in TABLES.items():
        assert list(map(tuple, elsewhere.conn.execute(sql))) == list(
            map(tuple, here.conn.execute(sql))
        ), name
    assert elsewhere.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == sum(
        r["status"] == "created" for r in here_results
    )
    here.close()
    elsewhere.close()


def _twice(chunk: list[int]) -> list[int]:
    return [2 * n for n in chunk]


def _fails_at_three(chunk: list[int]) -> list[int]:
    if 3 in chunk:
        raise ValueError(f"cannot take {chunk}")
    return chunk


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_child_maps_in_order_and_is_reaped() -> None:
    chunks = [[n, n + 1] for n in range(0, 400, 2)]
    assert list(forked.mapped(_twice, chunks, fork=True)) == [_twice(c) for c in chunks]
    assert _no_children_left()


def test_a_failure_in_the_child_is_raised_here_after_the_chunks_before_it() -> None:
    got: list[list[int]] = []
    with pytest.raises(ValueError, match=r"cannot take \[3\]"):
        for result in forked.mapped(_fails_at_three, [[1], [2], [3], [4]], fork=True):
            got.append(result)
    assert got == [[1], [2]]
    assert _no_children_left()


class _TwoPartError(Exception):
    """An error whose constructor takes other arguments than the one it keeps: pickled whole,
    it cannot be unpickled."""

    def __init__(self, what: str, chunk: list[int]) -> None:
        super().__init__(f"{what} in {chunk}")


def _fails_at_three_in_two_parts(chunk: list[int]) -> list[int]:
    if 3 in chunk:
        raise _TwoPartError("cannot take", chunk)
    return chunk


def test_a_failure_that_cannot_be_unpickled_is_raised_here_as_its_text() -> None:
    got: list[list[int]] = []
    with pytest.raises(RuntimeError, match=r"^_TwoPartError: cannot take in \[3\]$"):
        for result in forked.mapped(_fails_at_three_in_two_parts, [[1], [2], [3]], fork=True):
            got.append(result)
    assert got == [[1], [2]]
    assert _no_children_left()


def test_a_child_left_unread_is_stopped() -> None:
    results = forked.mapped(_twice, ([n] for n in range(10**6)), fork=True)
    assert next(results) == [0]
    results.close()  # type: ignore[attr-defined]
    assert _no_children_left()


PARENT = os.getpid()


def _killed_in_the_child(chunk: list[int]) -> list[int]:
    if chunk == [3] and os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    return chunk


def test_the_chunks_a_killed_child_did_not_hand_back_are_mapped_here() -> None:
    heard: list[str] = []
    chunks = [[1], [2], [3], [4], [5]]
    got = list(forked.mapped(_killed_in_the_child, chunks, fork=True, fell_back=heard.append))
    assert got == chunks  # the first here, the second from the child, the rest here again
    assert len(heard) == 1 and "killed by signal 9" in heard[0]
    assert _no_children_left()


def test_a_child_killed_mid_import_leaves_the_same_results_files_and_rows(
    tmp_path: Path,
) -> None:
    lines = _lines(4 * importer.DRAFT_CHUNK)
    # a path first met in the third chunk: the child dies drafting it, by a real SIGKILL
    lines[600] = json.dumps(
        {"summary": "the kill", "category": "context", "files": ["src/kill.py"], "id": "de1e7ed0"}
        | {"created": "2024-02-01T10:00:00Z"}
    )
    here_repo, elsewhere_repo = make_repo(tmp_path / "here"), make_repo(tmp_path / "elsewhere")
    here, here_results = _import(here_repo, lines, HERE)
    heard: list[str] = []
    store = MemoryStore(project_location(elsewhere_repo, create_at_cwd=True), notice=heard.append)
    parent = os.getpid()

    def normalize(raw: str) -> str:
        if raw == "src/kill.py" and os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return store.normalize_input(raw, elsewhere_repo)

    results = import_lines(store, lines, normalize, "tester", draft_elsewhere_from=ELSEWHERE)
    assert [r.to_dict() for r in results] == here_results
    assert _files(store) == _files(here)  # every file whole: none cut short, none missing
    for name, sql in TABLES.items():
        got = list(map(tuple, store.conn.execute(sql)))
        assert got == list(map(tuple, here.conn.execute(sql))), name
    assert len(heard) == 1 and "killed by signal 9" in heard[0]
    assert "drafted in this process" in heard[0]
    assert _no_children_left()
    here.close()
    store.close()


def test_a_batch_has_a_page_cache_of_its_own_and_gives_it_back(tmp_path: Path) -> None:
    from recall.store import batch

    assert batch.BATCH_CACHE_KIB == 128 * 1024
    repo = make_repo(tmp_path / "repo")
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)
    import_lines(store, [json.dumps({"summary": "first", "category": "context"})], str, "t")
    store.conn.execute("PRAGMA cache_size = -3000")  # the store on disk: its connection for good
    seen: list[int] = []

    def normalize(raw: str) -> str:
        if store.conn.in_transaction:  # drafted while the batch is written
            seen.append(store.conn.execute("PRAGMA cache_size").fetchone()[0])
        return store.normalize_input(raw, repo)

    lines = [
        json.dumps({"summary": f"note {n}", "category": "context", "files": [f"src/m{n}.py"]})
        for n in range(3 * importer.DRAFT_CHUNK)
    ]
    results = import_lines(store, lines, normalize, "tester", draft_elsewhere_from=HERE)
    assert sum(r.status == "created" for r in results) > 600
    assert set(seen) == {-batch.BATCH_CACHE_KIB}
    assert store.conn.execute("PRAGMA cache_size").fetchone()[0] == -3000
    store.close()


def test_a_text_rendered_ahead_is_taken_only_for_the_memory_it_was_rendered_for() -> None:
    from recall.model import Memory
    from recall.store.made_ahead import MadeAhead

    asked = Memory(id="c0ffee00", category="context", summary="pool size", created="2024-01-01")
    other = asked.with_changes(summary="another line asking for the same id")
    made = MadeAhead(None)
    made.add([], [], [(asked, "text of asked"), (other, "text of other")])
    assert made.text_of(other) is None  # the id went to the first line asking for it
    made.add([], [], [(asked, "text of asked")])
    assert made.text_of(asked.with_changes(id="0badf00d")) is None  # given another id
    assert made.text_of(asked) == "text of asked"
    assert made.text_of(asked) is None  # handed out once
