"""A full disk: a write fails with a clear error and leaves nothing half-written.

Two real ways to run out of room, each swept over many amounts of room left so that the
failure lands at every step of a write (the temp file, the rename, the -shm and -wal files,
the index commit):

- a small tmpfs mounted on ``.tether`` and filled up to a given number of free pages (true
  ``ENOSPC``; needs root, skipped otherwise);
- ``RLIMIT_FSIZE`` set in the CLI's process, with ``SIGXFSZ`` ignored, so every write past
  the limit fails with ``EFBIG`` (any user).

``remember``, ``supersede``, ``import`` and ``reindex`` run as real subprocesses. After each
run, with the room given back, the test asserts: exit 0 and the write present as a file and
an index row, or exit 3 with a message that says to free space, no traceback, and the memory
folder byte-identical to before; then a fresh store opens without a manual step, one index
row per memory file, no temp file, no half-done supersede. Run with ``-s`` for the figures.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import remember

from recall.locations import project_location
from recall.policy.usage import record_surfacings
from recall.store import MemoryStore
from tests.reliability.procs import mounted, run_cli, tree
from tests.reliability.test_kill9 import check_store

PAGE = 4096
TMPFS_SIZE = "8m"  # a few index files plus a -wal file that may grow to 4 MB
FREE_PAGES = ((0, True), (0, False), (32, False), (40, False), (96, False))
"""(free pages left on the tmpfs, whether another process holds the index open). Held open,
the -shm and -wal files already have their room, so the memory file itself is what runs out;
not held, opening the index needs room for them first. From nothing to enough for all."""
FSIZE_LIMITS = ((100, True), (40 * 1024, False), (4 * 1024 * 1024, False))
"""(RLIMIT_FSIZE, held open): the -wal file cut short while held; the -shm and -wal files
cut short; enough."""
COMMANDS = ("remember", "supersede", "import", "reindex")
ROOM_MESSAGE = "free some space"


def _argv(command: str, run: int, old: str | None) -> tuple[list[str], str]:
    if command == "remember":
        return ["remember", "--json", "-c", "gotcha", "-f", "src/app.py", f"full run {run}"], ""
    if command == "supersede":
        assert old is not None
        args = ["supersede", "--json", old, "-c", "decision", "-f", "src/app.py"]
        return [*args, f"successor {run}"], ""
    if command == "import":
        lines = [
            json.dumps({"summary": f"imported {run}.{k}", "category": "pref", "files": []})
            for k in range(5)
        ]
        return ["import", "--json", "-"], "\n".join(lines) + "\n"
    return ["reindex", "--json"], ""


def _kind(stderr: str, repo: Path) -> str:
    """An error message with its paths and ids taken out, to count the distinct failures."""
    text = stderr.strip().splitlines()[-1].replace(str(repo), "REPO")
    with contextlib.suppress(ValueError, KeyError, TypeError):  # --json errors are JSON
        text = json.loads(text)["error"]
    return re.sub(r"[0-9a-f]{8}\.md", "ID.md", text)[:150]


def _active_old(repo: Path) -> str:
    store = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        return next(m.id for m in store.list() if m.summary.startswith("seed"))
    finally:
        store.close()


def _half_done_supersedes(repo: Path) -> list[str]:
    store = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        by_id = {m.id: m for m in store.list(status="all")}
    finally:
        store.close()
    return [
        m.id
        for m in by_id.values()
        if m.supersedes and m.supersedes in by_id and by_id[m.supersedes].status == "active"
    ]


class Tally:
    """Runs per outcome, for the figures."""

    def __init__(self) -> None:
        self.outcomes: Counter[str] = Counter()
        self.by_level: dict[str, list[str]] = defaultdict(list)
        self.messages: Counter[str] = Counter()

    def line(self, label: str) -> str:
        done, refused = self.outcomes["written"], self.outcomes["refused"]
        levels = "; ".join(f"{k}: {' '.join(v)}" for k, v in self.by_level.items())
        return (
            f"[disk full, {label}] attempted={done + refused} written={done} "
            f"refused={refused}\n  exit codes by level: {levels}\n  errors: "
            + "\n          ".join(f"{n} x {m}" for m, n in self.messages.most_common())
        )


@contextlib.contextmanager
def _held_open(repo: Path, held: bool) -> Iterator[None]:
    """With ``held``, keep the index open in this process (as a running language server
    would), with something in its -wal file."""
    if not held:
        yield
        return
    store = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        record_surfacings(store.conn, [m.id for m in store.list()][:3])
        yield
    finally:
        store.close()


def _sweep(
    repo: Path,
    levels: tuple[tuple[int, bool], ...],
    squeeze: Callable[[int], Iterator[Callable[[], None] | None]],
    tally: Tally,
) -> None:
    """Run every command at every level; ``squeeze(level)`` is a one-shot generator that
    takes the room away, yields a preexec function (or None), and gives the room back."""
    memories = repo / ".tether" / "memories"
    runs = [(level, held, c) for level, held in levels for c in COMMANDS]
    for run, (level, held, command) in enumerate(runs):
        old = _active_old(repo) if command == "supersede" else None
        argv, stdin = _argv(command, run, old)
        before = tree(memories)
        with _held_open(repo, held):
            squeezing = squeeze(level)
            preexec = next(squeezing)
            done = run_cli(repo, *argv, preexec=preexec, stdin=stdin)
            next(squeezing, None)  # room given back
        tally.by_level[f"{level}{' held' if held else ''}"].append(f"{command}={done.returncode}")
        where = f"{command} at level {level}: exit {done.returncode}\n{done.stderr}"
        assert "Traceback" not in done.stderr, where
        if done.returncode == 0:
            tally.outcomes["written"] += 1
            if command in ("remember", "supersede"):
                new_id = json.loads(done.stdout)["id"]
                assert (memories / f"{new_id}.md").is_file(), where
        else:
            assert done.returncode == 3, where
            assert ROOM_MESSAGE in done.stderr, where
            assert tree(memories) == before, f"{where}: the memory folder changed"
            tally.messages[_kind(done.stderr, repo)] += 1
            tally.outcomes["refused"] += 1
        assert not [n for n in os.listdir(memories) if n.startswith(".")], where
        check_store(repo)  # opens a fresh store: the index recovers on its own
        assert _half_done_supersedes(repo) == [], where
    assert tally.outcomes["refused"], "no level of the sweep ran out of room"
    assert tally.outcomes["written"], "no level of the sweep left enough room"


def _seed(repo: Path) -> None:
    store = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        for k in range(len(FREE_PAGES) + len(FSIZE_LIMITS) + 2):
            remember(store, f"seed memory {k}")
    finally:
        store.close()


def test_full_tmpfs_refuses_cleanly_at_every_level(repo: Path) -> None:
    tether = repo / ".tether"
    tether.mkdir()
    with mounted(tether, "-t", "tmpfs", "-o", f"size={TMPFS_SIZE},mode=0755", "tmpfs"):
        _seed(repo)
        filler = tether / "filler"

        def squeeze(free_pages: int) -> Iterator[None]:
            filler.unlink(missing_ok=True)
            room = os.statvfs(tether)
            size = max(0, room.f_bavail * room.f_frsize - free_pages * PAGE)
            fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                if size:
                    os.posix_fallocate(fd, 0, size)
            finally:
                os.close(fd)
            yield None
            filler.unlink()

        tally = Tally()
        _sweep(repo, FREE_PAGES, squeeze, tally)
    print("\n" + tally.line(f"tmpfs {TMPFS_SIZE}, free pages {list(FREE_PAGES)}"))


def test_file_size_limit_refuses_cleanly_at_every_level(repo: Path) -> None:
    _seed(repo)

    def squeeze(limit: int) -> Iterator[Callable[[], None]]:
        def preexec() -> None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a killed process
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        yield preexec

    tally = Tally()
    _sweep(repo, FSIZE_LIMITS, squeeze, tally)
    print("\n" + tally.line(f"RLIMIT_FSIZE {list(FSIZE_LIMITS)}"))


@pytest.fixture(autouse=True)
def _no_stray_mounts(repo: Path) -> Iterator[None]:
    yield
    assert not os.path.ismount(repo / ".tether"), "the tmpfs was left mounted"
