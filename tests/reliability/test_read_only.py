"""A store that cannot be written still serves reads, and refuses writes with what to do.

A read-only ``.tether`` happens on a read-only mount, in a checkout owned by someone else, or
after ``chmod -R a-w``. Reads (recall, list, show, search) must work from an in-memory copy
of the index with one notice, and leave every byte on disk as it was; writes must fail with
exit code 3, a message naming the store and saying what to do, and nothing half-written.
Permissions are enforced for root through ``setpriv`` (see ``procs``); the read-only mount
variant uses a real ``ro`` bind mount and needs root.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import remember

from recall.browse.actions import Browser
from recall.browse.view import Entry
from recall.errors import StoreUnavailable
from recall.index import db, snapshot
from recall.lifecycle import cleanup
from recall.lifecycle.disuse import archived_by_disuse, bring_back
from recall.locations import global_location, project_location
from recall.policy.sessions import count_turn
from recall.policy.usage import counters, record_action, record_surfacings
from recall.store import MemoryStore
from tests.lifecycle.aging import archive_by_disuse
from tests.reliability.procs import (
    make_read_only,
    make_writable,
    read_only_mount,
    run_cli,
    tree,
    unprivileged,
)

NOTICE = "read-only store"
READS = [
    ("recall", "--json", "--file", "src/app.py"),
    ("recall", "--json", "--file", "src/app.py", "--session", "s-1"),
    ("list", "--json", "--status", "all"),
    ("show", "--json", "{id}"),
    ("search", "--json", "memory"),
    ("inject", "--file", "src/app.py", "what about the app?"),
]
WRITES = [
    ("remember", "-c", "gotcha", "-f", "src/app.py", "written into a read-only store"),
    ("pin", "{id}"),
    ("archive", "{id}"),
    ("supersede", "{id}", "-c", "decision", "-f", "src/app.py", "a successor"),
    ("import", "-"),
    ("reindex",),
    ("index",),
]
IMPORT_LINE = '{"summary": "imported into a read-only store", "category": "gotcha"}\n'


@pytest.fixture
def seeded(repo: Path, store: MemoryStore) -> Iterator[tuple[Path, str]]:
    """Three memories with some usage; yields ``.tether`` and the first id. Write permission
    is given back at teardown so the temp folder can be removed."""
    first = remember(store, "first memory about the app")
    remember(store, "second memory about the app")
    remember(store, "third memory about the util", files=["src/util.py"])
    record_action(store.conn, first)
    store.close()
    tether = repo / ".tether"
    yield tether, first
    make_writable(tether)


@pytest.fixture
def disused(repo: Path, seeded: tuple[Path, str]) -> tuple[Path, str, str]:
    """``seeded`` with its second memory archived by disuse: ``.tether``, the first id (acted
    on once) and the archived one's id."""
    tether, first = seeded
    store = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        second = next(m.id for m in store.list() if m.summary.startswith("second"))
        archive_by_disuse(store, second)
    finally:
        store.close()
    return tether, first, second


def _leave_a_crashed_index(repo: Path) -> None:
    """Leave index.db-wal and -shm behind, as a process killed with the index open does."""
    code = (
        "import os, signal\n"
        "from pathlib import Path\n"
        "from recall.locations import project_location\n"
        "from recall.store import MemoryStore\n"
        "from recall.policy.usage import record_surfacings\n"
        "store = MemoryStore(project_location(Path.cwd()))\n"
        "record_surfacings(store.conn, [m.id for m in store.list()])\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, check=False, timeout=60)
    assert done.returncode == -signal.SIGKILL
    assert (repo / ".tether" / "index.db-wal").exists()


def _prepare(tether: Path, state: str) -> None:
    if state == "crashed":
        _leave_a_crashed_index(tether.parent)
    elif state == "no-index":  # a checkout whose index was never built
        (tether / "index.db").unlink()
        (tether / "write.lock").unlink()


def _check_reads(
    repo: Path, first: str, prefix: list[str], reads: list[tuple[str, ...]] = READS
) -> int:
    """Run the reads; each must succeed with exactly one read-only notice."""
    done_reads = 0
    for read in reads:
        done = run_cli(repo, *(arg.format(id=first) for arg in read), prefix=prefix)
        assert done.returncode == 0, (read, done.stderr)
        assert done.stderr.count(NOTICE) == 1, (read, done.stderr)
        assert "Traceback" not in done.stderr
        if read[0] == "recall":
            assert first in {r["id"] for r in json.loads(done.stdout)["results"]}
        elif read[0] == "list":
            assert len(json.loads(done.stdout)) == 3
        done_reads += 1
    return done_reads


def _check_writes_refused(
    repo: Path,
    tether: Path,
    first: str,
    prefix: list[str],
    writes: list[tuple[str, ...]] = WRITES,
    advice: str = "chmod -R u+w",
) -> int:
    """Run the writes; each must exit 3 saying what to do, with nothing changed on disk."""
    before = tree(tether)
    refused = 0
    for write in writes:
        args = [arg.format(id=first) for arg in write]
        stdin = IMPORT_LINE if write[0] == "import" else ""
        done = run_cli(repo, *args, prefix=prefix, stdin=stdin)
        assert done.returncode == 3, (write, done.returncode, done.stderr)
        assert "read-only" in done.stderr and str(tether) in done.stderr, done.stderr
        assert advice in done.stderr, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        assert tree(tether) == before, f"{write[0]} changed {tether}"
        refused += 1
    return refused


@pytest.mark.parametrize("state", ["clean", "crashed", "no-index"])
def test_fully_read_only_tether_serves_reads_and_refuses_writes(
    repo: Path, seeded: tuple[Path, str], state: str
) -> None:
    """Every read and write on a clean index; the first read and write of each list on an
    index left with -wal/-shm by a crash, or never built (the rest run the same code)."""
    tether, first = seeded
    _prepare(tether, state)
    prefix = unprivileged()
    make_read_only([tether, *tether.rglob("*")])
    before = tree(tether)
    some = state != "clean"
    reads = _check_reads(repo, first, prefix, READS[:1] if some else READS)
    assert tree(tether) == before, "a read wrote to the read-only store"
    refused = _check_writes_refused(repo, tether, first, prefix, WRITES[:1] if some else WRITES)
    print(
        f"\n[read-only .tether/, {state}] reads ok={reads}; writes refused={refused}; "
        "bytes on disk unchanged"
    )


def test_read_only_mount_serves_reads_and_refuses_writes(
    repo: Path, seeded: tuple[Path, str]
) -> None:
    tether, first = seeded
    with read_only_mount(tether):
        before = tree(tether)
        reads = _check_reads(repo, first, [], READS[:2])
        refused = _check_writes_refused(
            repo, tether, first, [], WRITES[:2], advice="read-only file system"
        )
        assert tree(tether) == before
    print(f"\n[read-only mount] reads ok={reads}; writes refused={refused}")


def test_read_only_index_folder_with_writable_memories(
    repo: Path, seeded: tuple[Path, str]
) -> None:
    tether, first = seeded
    prefix = unprivileged()
    make_read_only([tether, tether / "index.db", tether / "write.lock"])
    _check_reads(repo, first, prefix, READS[:1])
    _check_writes_refused(repo, tether, first, prefix, WRITES[:2])


def test_memories_folder_read_only_with_writable_index(
    repo: Path, seeded: tuple[Path, str]
) -> None:
    tether, first = seeded
    prefix = unprivileged()
    memories = tether / "memories"
    make_read_only([memories, *memories.iterdir()])
    before = tree(memories)
    refused = 0
    for write in WRITES[:4]:
        done = run_cli(repo, *(arg.format(id=first) for arg in write), prefix=prefix)
        assert done.returncode == 3, (write, done.stderr)
        assert f"the folder {memories} is not writable" in done.stderr, done.stderr
        assert "check that folder's permissions" in done.stderr
        assert "Traceback" not in done.stderr
        assert tree(memories) == before, f"{write[0]} changed the memory folder"
        refused += 1
    recalled = run_cli(repo, "recall", "--json", "--file", "src/app.py", prefix=prefix)
    assert recalled.returncode == 0, recalled.stderr
    assert first in {r["id"] for r in json.loads(recalled.stdout)["results"]}
    assert NOTICE not in recalled.stderr  # the index is writable: usage is recorded as usual
    listed = run_cli(repo, "list", "--json", "--status", "all", prefix=prefix)
    assert listed.returncode == 0 and len(json.loads(listed.stdout)) == 3
    print(f"\n[read-only memories/] writes refused={refused} of 4; recall and list ok")


def test_per_user_writes_a_person_asks_for_are_refused(
    repo: Path, disused: tuple[Path, str, str]
) -> None:
    """Bringing a memory back from disuse, a cleanup decision and the cleanup pass change only
    the index's per-user tables; on a read-only store they must be refused as every write is,
    not done in the in-memory copy and reported done."""
    tether, first, second = disused
    prefix = unprivileged()
    make_read_only([tether, *tether.rglob("*")])
    writes = [
        ("restore", second),
        ("restore", "--json", second),
        ("cleanup", "--keep", second, first),
        ("cleanup", "--interactive"),  # the pass is recorded before the first question
    ]
    refused = _check_writes_refused(repo, tether, first, prefix, writes)
    kept = run_cli(repo, "cleanup", "--json", "--keep", first, prefix=prefix)
    assert kept.returncode == 3, kept.stderr
    data = json.loads(kept.stdout)  # with --json, each decision says how it went
    assert "read-only" in data["applied"][0]["error"]
    assert data["last_pass"] is None  # a decision failed: the run is no pass, not even tried
    # the flag is still there: reads say so, and still work
    shown = run_cli(repo, "show", "--json", second, prefix=prefix)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["archived_by"] == "disuse"
    print(f"\n[read-only .tether/, per-user writes] refused={refused} of {len(writes)}")


def test_cleanup_decisions_applied_elsewhere_are_reported_when_the_pass_is_refused(
    repo: Path, disused: tuple[Path, str, str]
) -> None:
    """Decisions on the (writable) global store stand and are listed, though the pass cannot
    be recorded in the read-only project store."""
    tether, _first, _second = disused
    prefix = unprivileged()
    personal = MemoryStore(global_location(repo), notice=lambda _m: None)
    try:
        mine = personal.remember(
            personal.prepare_memory(summary="my own note", category="pref", files=[])
        ).id
    finally:
        personal.close()
    make_read_only([tether, *tether.rglob("*")])
    done = run_cli(repo, "cleanup", "--json", "--keep", mine, prefix=prefix)
    assert done.returncode == 3, done.stderr
    data = json.loads(done.stdout)
    assert data["applied"] == [
        {"id": mine, "scope": "global", "decision": "keep", "status": "active"}
    ]
    assert data["last_pass"] is None and "read-only" in data["pass_error"]
    personal = MemoryStore(global_location(repo), notice=lambda _m: None)
    try:
        assert counters(personal.conn, mine)["acted"] == 1  # kept: counted, and on disk
    finally:
        personal.close()


# -- in-process: the snapshot and the guards ---------------------------------------------------


def test_read_only_store_in_process_reads_and_counts_in_memory(
    repo: Path, seeded: tuple[Path, str]
) -> None:
    """What the CLI sees, without a subprocess. Root may write any file it can open, so as
    root the store is put on a read-only mount; anyone else gets a read-only index file."""
    tether, first = seeded
    with contextlib.ExitStack() as stack:
        if os.geteuid() == 0:
            stack.enter_context(read_only_mount(tether))
        else:
            make_read_only([tether / "index.db"])
        before = tree(tether)
        notices: list[str] = []
        store = MemoryStore(project_location(repo), notice=notices.append)
        try:
            assert len(store.list()) == 3
            assert store.read_only is not None and "index.db" in store.read_only
            record_action(store.conn, first)  # counted in the in-memory copy only
            assert counters(store.conn, first)["acted"] == 2
            with pytest.raises(StoreUnavailable, match="read-only"):
                remember(store, "not written")
        finally:
            store.close()
        assert len(notices) == 1, notices
        assert tree(tether) == before


def test_restore_keep_and_the_pass_refuse_in_process(
    repo: Path, disused: tuple[Path, str, str]
) -> None:
    """The engine calls behind the browser, the language server and cleanup, on a store that
    cannot be written (a read-only mount as root, a read-only index file for anyone else)."""
    tether, first, second = disused
    with contextlib.ExitStack() as stack:
        if os.geteuid() == 0:
            stack.enter_context(read_only_mount(tether))
        else:
            make_read_only([tether / "index.db"])
        before = tree(tether)
        store = MemoryStore(project_location(repo), notice=lambda _m: None)
        try:
            with pytest.raises(StoreUnavailable, match="read-only"):
                bring_back(store, store.get(second), ("archived",))
            browser = Browser([store])
            with pytest.raises(StoreUnavailable, match="read-only"):
                browser.restore(Entry(store.get(second), "project", disused=True))
            with pytest.raises(StoreUnavailable, match="read-only"):
                cleanup.apply(store, store.get(first), "keep")
            with pytest.raises(StoreUnavailable, match="read-only"):
                store.write_per_user(cleanup.record_pass)
            assert second in archived_by_disuse(store.conn)  # not even in the copy
            assert counters(store.conn, first)["acted"] == 1
        finally:
            store.close()
        assert tree(tether) == before


def test_snapshot_of_a_future_schema_is_rebuilt_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    conn, _ = db.open_checked(path)
    conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    conn.close()
    before = path.read_bytes()
    copy, problem = snapshot.open_snapshot(path)
    try:
        assert problem is not None and "newer" in problem
        assert copy.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
    finally:
        copy.close()
    assert path.read_bytes() == before


def test_counters_skip_a_write_the_index_refuses(tmp_path: Path) -> None:
    """A store opened writable whose index later turns read-only (a remount, a chmod under a
    long-lived server): counting is skipped, reads go on. ``mode=ro`` gives SQLite's real
    read-only error for any user."""
    path = tmp_path / "index.db"
    conn, _ = db.open_checked(path)
    conn.close()
    before = path.read_bytes()
    ro = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        record_action(ro, "0123abcd")
        record_surfacings(ro, ["0123abcd", "4567ef01"])
        assert count_turn(ro, "session-1") == 1
        assert not ro.in_transaction
    finally:
        ro.close()
    assert path.read_bytes() == before
    with pytest.raises(sqlite3.OperationalError, match="no such table"):  # others still surface
        record_action(sqlite3.connect(":memory:"), "0123abcd")


def test_read_only_errors_are_told_apart_from_damage(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    conn, _ = db.open_checked(path)
    conn.close()
    ro = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as caught:
        ro.execute("INSERT INTO meta(key, value) VALUES('k', 'v')")
    ro.close()
    assert db.is_read_only_error(caught.value) and db.is_unwritable_error(caught.value)
    assert not db.is_full_error(caught.value)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 100)
    with pytest.raises(db.IndexUnusable):
        db.open_checked(garbage)


def test_a_wal_removed_by_its_last_connection_while_probed_is_not_taken_for_read_only(
    repo: Path, seeded: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another connection closing between the probe's stat and its access check removes the
    WAL: the file is missing then, which is fine, not unwritable."""
    location = project_location(repo)
    wal = Path(f"{location.index_path}-wal")
    other = sqlite3.connect(location.index_path, isolation_level=None)
    other.execute("INSERT INTO meta(key, value) VALUES('probe', '1')")  # leaves the WAL
    assert wal.exists()
    real_access = os.access

    def closing_first(path: object, mode: int, **kwargs: object) -> bool:
        if Path(str(path)) == wal:
            other.close()  # the last connection of the index: SQLite removes its WAL
        return real_access(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", closing_first)
    store = MemoryStore(location, notice=lambda message: None)
    try:
        assert store.find(seeded[1]) is not None
        assert store.read_only is None, store.read_only
    finally:
        store.close()
