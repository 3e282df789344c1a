"""A bulk import creates its memory files on a thread of their own while it drafts and indexes
the rest: the same files and index rows as in one thread, a failure to write reported as in one
thread, and nothing of the batch left behind."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_repo

from recall import write_behind
from recall.errors import BadInput, StoreUnavailable
from recall.importer import import_lines
from recall.locations import project_location
from recall.memfiles import MemoryFolder
from recall.ranking.vector_cache import vectors_complete
from recall.replayable import Replayable
from recall.store import MemoryStore
from tests.reliability.procs import mounted, read_only_mount

THREADED = 0  # write_behind_from: every import on the writer thread
INLINE = 10**9  # write_behind_from: every import in the importing thread

TABLES = {
    "memories": "SELECT id, name, category, summary, details, files, anchor, anchors, pinned, "
    "guard, status, supersedes, superseded_by, created, author, source, content_hash, size, "
    "file_sha, rowid FROM memories ORDER BY rowid",
    "files": "SELECT memory_rowid, path FROM memory_files ORDER BY memory_rowid, path",
    "words": "SELECT rowid, summary, details FROM fts_words ORDER BY rowid",
    "trigram": "SELECT rowid, summary, details FROM fts_trigram ORDER BY rowid",
    "vectors": "SELECT memory_rowid, model, vec FROM vectors ORDER BY memory_rowid",
    "word hits": "SELECT rowid FROM fts_words WHERE fts_words MATCH 'pool' ORDER BY rowid",
    "trigram hits": "SELECT rowid FROM fts_trigram WHERE fts_trigram MATCH 'nnec' ORDER BY rowid",
    "generation": "SELECT value FROM meta WHERE key = 'generation'",
}


def test_the_writer_constants_are_pinned() -> None:
    assert write_behind.CHUNK == 256
    assert write_behind.QUEUE_DEPTH == 4
    assert write_behind.WRITE_BEHIND_FROM == 2 * write_behind.CHUNK
    assert write_behind.SWITCH_INTERVAL_S == 0.0005


def _lines(count: int) -> list[str]:
    """Lines of every kind: ids given, details, several files, duplicates, refusals."""
    lines: list[str] = []
    for n in range(count):
        record: dict[str, object] = {
            "summary": f"connection pool note {n}",
            "category": ("gotcha", "decision", "context", "pref")[n % 4],
            "files": ["src/app.py"] if n % 2 else ["src/util.py", "docs/guide.md"],
            "created": f"2024-01-{1 + n % 28:02d}T10:00:00Z",
            "id": f"{0xB0000000 + n:08x}",
        }
        if n % 5 == 0:
            record["details"] = f"details of {n}\nsecond line"
        if n % 97 == 0:
            record["summary"] = "connection pool note 1"  # a duplicate of line 2
        lines.append(json.dumps(record))
        if n % 250 == 0:
            lines.append("{not json")
            lines.append(json.dumps({"summary": "no category"}))
    return lines


def _import(repo: Path, lines: list[str], write_behind_from: int) -> tuple[MemoryStore, list]:
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)
    results = import_lines(
        store,
        lines,
        lambda raw: store.normalize_input(raw, repo),
        "tester",
        write_behind_from=write_behind_from,
    )
    return store, [r.to_dict() for r in results]


def _files(store: MemoryStore) -> dict[str, bytes]:
    folder = store.folder.path
    return {name: (folder / name).read_bytes() for name in sorted(os.listdir(folder))}


def _rows(store: MemoryStore) -> dict[str, list[tuple[object, ...]]]:
    return {name: [tuple(r) for r in store.conn.execute(sql)] for name, sql in TABLES.items()}


def _repo(path: Path) -> Path:
    return make_repo(path)


def test_the_writer_thread_writes_the_same_files_and_rows(tmp_path: Path) -> None:
    lines = _lines(3 * write_behind.CHUNK + 40)
    threaded, threaded_results = _import(_repo(tmp_path / "a"), lines, THREADED)
    inline, inline_results = _import(_repo(tmp_path / "b"), lines, INLINE)
    assert threaded_results == inline_results
    statuses = {r["status"] for r in inline_results}
    assert statuses == {"created", "duplicate", "error"}
    assert _files(threaded) == _files(inline)
    assert len(_files(inline)) == sum(r["status"] == "created" for r in inline_results)
    assert _rows(threaded) == _rows(inline)
    # the mtime and size each row holds are its file's own; the vectors are complete
    for store in (threaded, inline):
        (model,) = {m for (m,) in store.conn.execute("SELECT model FROM vectors")}
        assert vectors_complete(store.conn, model)
        for name, mtime_ns, size in store.conn.execute("SELECT name, mtime_ns, size FROM memories"):
            st = os.stat(store.folder.path / name)
            assert (st.st_mtime_ns, st.st_size) == (mtime_ns, size)
        store.close()


@pytest.fixture
def interval() -> Iterator[float]:
    """A switch interval of its own for the test (Python's default is 0.005 s)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.004)
    yield 0.004
    sys.setswitchinterval(before)


def test_the_switch_interval_is_given_back(tmp_path: Path, interval: float) -> None:
    before = interval
    store, results = _import(_repo(tmp_path / "a"), _lines(300), THREADED)
    assert sys.getswitchinterval() == before
    assert sum(r["status"] == "created" for r in results) > 250
    store.close()


def _failure(repo: Path, lines: list[str], write_behind_from: int) -> tuple[str, dict, int]:
    """The error an import meets, the memory folder after it, and the rows indexed."""
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)
    with pytest.raises(StoreUnavailable) as caught:
        import_lines(
            store,
            lines,
            lambda raw: store.normalize_input(raw, repo),
            "tester",
            write_behind_from=write_behind_from,
        )
    folder = _files(store)
    count = store.conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    store.close()
    return str(caught.value).replace(str(repo), "REPO"), folder, count


def _seeded(path: Path) -> Path:
    """A repository whose store exists with one memory, before its folder is taken away."""
    repo = _repo(path)
    store, results = _import(repo, _lines(1), INLINE)
    assert results[0]["status"] == "created"
    store.close()
    return repo


def test_a_read_only_folder_fails_the_writer_as_it_fails_one_thread(tmp_path: Path) -> None:
    lines = _lines(2 * write_behind.CHUNK + 10)[1:]
    outcomes = []
    for name, write_behind_from in (("threaded", THREADED), ("inline", INLINE)):
        repo = _seeded(tmp_path / name)
        memories = repo / ".tether" / "memories"
        seeded = sorted(os.listdir(memories))
        with read_only_mount(memories):
            message, folder, count = _failure(repo, lines, write_behind_from)
        assert sorted(folder) == seeded  # nothing of the batch, no temp file
        assert count == 1
        outcomes.append(message)
    assert outcomes[0] == outcomes[1]
    assert "read-only" in outcomes[0] or "Read-only" in outcomes[0]


def test_a_disk_full_midway_leaves_nothing_and_says_so_as_one_thread(tmp_path: Path) -> None:
    # 4 KiB a file on tmpfs: room for about 120 files, so the batch fails in its first chunks
    lines = _lines(3 * write_behind.CHUNK)[1:]
    outcomes = []
    for name, write_behind_from in (("threaded", THREADED), ("inline", INLINE)):
        repo = _seeded(tmp_path / name)
        memories = repo / ".tether" / "memories"
        seeded = {n: (memories / n).read_bytes() for n in os.listdir(memories)}
        with mounted(memories, "-t", "tmpfs", "-o", "size=480k,mode=0755", "tmpfs"):
            for n, data in seeded.items():
                (memories / n).write_bytes(data)
            message, folder, count = _failure(repo, lines, write_behind_from)
            assert folder == seeded  # nothing of the batch, no temp file
        assert count == 1
        outcomes.append(message)
    assert outcomes[0] == outcomes[1]
    assert "free some space" in outcomes[0]


def test_drafts_asked_for_again_are_the_same_and_drafted_once() -> None:
    made: list[int] = []

    def source():
        for n in range(5):
            made.append(n)
            yield (n, None)

    drafts = Replayable(source())  # type: ignore[arg-type]
    assert not drafts.empty() and made == [0]
    first = iter(drafts)
    assert [next(first), next(first), next(first)] == [(0, None), (1, None), (2, None)]
    assert list(drafts) == [(n, None) for n in range(5)]  # a second pass, as after a recovery
    assert made == [0, 1, 2, 3, 4]
    assert Replayable(iter(())).empty()


def test_an_import_of_bad_lines_only_does_not_create_the_store(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "a")
    store, results = _import(repo, ["{not json", json.dumps({"summary": "x"})], THREADED)
    assert [r["status"] for r in results] == ["error", "error"]
    assert not (repo / ".tether").exists()
    store.close()


def test_the_index_of_a_threaded_import_answers(tmp_path: Path) -> None:
    store, _results = _import(_repo(tmp_path / "a"), _lines(600), THREADED)
    conn = sqlite3.connect(store.location.index_path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == len(_files(store))
    store.close()


@pytest.mark.parametrize("threaded", [True, False])
def test_a_failed_chunk_is_reported_before_a_later_failure_of_the_caller(
    tmp_path: Path, threaded: bool
) -> None:
    folder = MemoryFolder(tmp_path / "memories")
    writer = write_behind.WriteBehind(folder, threaded=threaded)
    writer.put([("a0000001.md", "first\n"), ("a0000002.md", "second\n")])
    try:
        writer.put([("a0000003.md", "third\n"), ("../a0000004.md", "outside\n")])
    except BadInput:
        assert not threaded  # in one thread the failure is met at once
    # the caller then fails on its own (its index, say): the file's failure is the one to tell
    failed = writer.abandon(RuntimeError("the index failed after"))
    assert isinstance(failed, BadInput)
    assert str(failed) == "memory file name '../a0000004.md' is not a plain file name"
    assert [s.name for s in writer.written] == ["a0000001.md", "a0000002.md", "a0000003.md"]
    assert sorted(os.listdir(folder.path)) == ["a0000001.md", "a0000002.md", "a0000003.md"]
    with pytest.raises(BadInput):
        writer.put([("a0000005.md", "fifth\n")])
    assert not (tmp_path / "a0000004.md").exists()


def test_an_interrupt_stops_the_writer_without_waiting_for_its_queue(
    tmp_path: Path, interval: float
) -> None:
    folder = MemoryFolder(tmp_path / "memories")
    folder.path.mkdir()
    before = interval
    writer = write_behind.WriteBehind(folder, threaded=True)
    for n in range(write_behind.QUEUE_DEPTH):
        writer.put([(f"{n:08x}.md", "text\n")])
    assert writer.abandon(KeyboardInterrupt()) is None
    assert sys.getswitchinterval() == before
    assert len(os.listdir(folder.path)) == len(writer.written) <= write_behind.QUEUE_DEPTH


def test_drafts_that_failed_fail_again_when_asked_for_again() -> None:
    """A replay after a recovery must not end quietly where drafting failed: the lines after
    it would be neither imported nor reported."""

    def source():
        yield (0, None)
        raise sqlite3.DatabaseError("database disk image is malformed")

    drafts = Replayable(source())  # type: ignore[arg-type]
    with pytest.raises(sqlite3.DatabaseError):
        list(drafts)
    again = iter(drafts)
    assert next(again) == (0, None)
    with pytest.raises(sqlite3.DatabaseError):
        next(again)


def test_ctrl_c_pressed_again_and_again_leaves_no_file_of_the_batch(tmp_path: Path) -> None:
    """The first Ctrl-C abandons the batch; the presses after it, while its files are taken
    away again, do not cut that short (they left hundreds of files behind)."""
    import signal
    import subprocess
    import time

    repo = make_repo(tmp_path / "repo")
    env = {**os.environ, "TETHER_WARM": "0"}
    tether = [sys.executable, "-m", "recall"]
    subprocess.run([*tether, "init"], cwd=repo, env=env, check=True, capture_output=True)
    lines = "".join(
        json.dumps({"summary": f"note {n} on the pool", "category": "context", "files": ["a"]})
        + "\n"
        for n in range(20_000)
    )
    memories = repo / ".tether" / "memories"
    # as from a terminal: a run started in the background with Ctrl-C ignored would pass
    # that on to the import, which then never sees one
    ignored = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [*tether, "import", "-"],
            cwd=repo,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    finally:
        signal.signal(signal.SIGINT, ignored)
    assert proc.stdin is not None
    proc.stdin.write(lines.encode())
    proc.stdin.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(os.listdir(memories)) < 2 * write_behind.CHUNK:
        time.sleep(0.01)
    assert proc.poll() is None, "the import ended before it could be interrupted"
    deadline = time.monotonic() + 60  # its own bound: a slow first phase must not skip this one
    while proc.poll() is None and time.monotonic() < deadline:
        proc.send_signal(signal.SIGINT)
        time.sleep(0.02)
    assert proc.wait(timeout=60) != 0
    assert os.listdir(memories) == []


def test_a_file_over_the_limit_to_be_written_is_said_not_written(tmp_path: Path) -> None:
    folder = MemoryFolder(tmp_path / "memories")
    big = "z" * (folder.max_bytes + 1)
    for write in (
        lambda: folder.write("a0000001.md", big, exclusive=True),
        lambda: list(folder.write_batch([("a0000002.md", big)])),
    ):
        with pytest.raises(BadInput) as caught:
            write()
        assert "nothing is written" in str(caught.value)
        assert "skipped" not in str(caught.value)
    assert not any(folder.path.glob("*.md"))
