"""A large import's drafting process when things go wrong around it: a write that fails, the
made-ahead work it hands back, a closed standard error, an interrupt at the fork. Each test is
bounded by an alarm, so a hang fails instead of blocking the run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_repo

from recall import forked, importer, write_behind
from recall.errors import StoreUnavailable
from recall.importer import import_lines
from recall.locations import project_location
from recall.store import MemoryStore
from recall.store.made_ahead import MadeAhead
from tests.reliability.procs import mounted
from tests.test_write_behind import _lines

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="drafting forks on Linux only")

BOUND_S = 60
"""A bound on each test on a loaded machine; a hang never ends at all."""
FORK = {"draft_elsewhere_from": 0}  # every import drafted in a forked process


class _Hung(Exception):
    """A test that outlived its bound: raised by the alarm, so a hang fails instead of waiting."""


@pytest.fixture(autouse=True)
def bounded() -> Iterator[None]:
    def hung(_signum: int, _frame: object) -> None:
        raise _Hung(f"still running after {BOUND_S} s")

    before = signal.signal(signal.SIGALRM, hung)
    signal.alarm(BOUND_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def _children() -> bool:
    """Whether this process has a child, running or ended and not reaped."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return True


def test_a_disk_full_stops_the_drafting_process_before_the_error_is_raised(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo")
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)
    memories = repo / ".tether" / "memories"
    memories.mkdir(parents=True, exist_ok=True)
    lines = _lines(12 * write_behind.CHUNK)
    # 4 KiB a file on tmpfs: room for about 60 files, so the batch fails in its first chunk
    with mounted(memories, "-t", "tmpfs", "-o", "size=240k,mode=0755", "tmpfs"):
        with pytest.raises(StoreUnavailable, match="free some space") as caught:
            import_lines(
                store,
                lines,
                lambda raw: store.normalize_input(raw, repo),
                "tester",
                **FORK,
            )
        # the error still held (its traceback holds the drafting): the child is gone already
        assert caught.value is not None
        assert not _children()
    store.close()


def test_what_was_made_ahead_is_dropped_once_written_or_found_a_duplicate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[MadeAhead] = []

    class Recorded(MadeAhead):  # the same object, only recorded to be looked at afterwards
        def __init__(self, embedder: object) -> None:
            super().__init__(embedder)  # type: ignore[arg-type]
            made.append(self)

    monkeypatch.setattr(importer, "MadeAhead", Recorded)
    repo = make_repo(tmp_path / "repo")
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)
    lines = _lines(8 * importer.DRAFT_CHUNK)
    first = import_lines(store, lines, lambda raw: store.normalize_input(raw, repo), "t", **FORK)
    again = import_lines(store, lines, lambda raw: store.normalize_input(raw, repo), "t", **FORK)
    assert sum(r.status == "created" for r in first) > 1500
    assert {r.status for r in again} == {"duplicate", "error"}  # nothing of it written
    assert len(made) == 2
    for kept in made:  # every vector and text handed back was taken or dropped
        assert kept.vectors == {} and kept.texts == {}
    assert store.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == sum(
        r.status == "created" for r in first
    )
    store.close()


ROOT = Path(__file__).resolve().parent.parent


def _without_stderr(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``args`` run with its standard error closed (as ``2>&-`` leaves it)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    return subprocess.run(
        ["sh", "-c", 'exec "$@" 2>&-', "sh", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        timeout=BOUND_S / 2,
        check=False,
    )


MAPPED_WITHOUT_STDERR = """
import json, os, sys
from recall import forked

parent = os.getpid()

def work(chunk):
    if os.getpid() != parent:
        print("said in the child", chunk, file=sys.stderr)
    return [2 * n for n in chunk]

heard = []
got = list(forked.mapped(work, [[n] for n in range(40)], fork=True, fell_back=heard.append))
print(json.dumps({"stderr": sys.stderr is None, "heard": heard, "got": got}))
"""


def test_a_child_of_a_process_without_stderr_maps_its_chunks(tmp_path: Path) -> None:
    done = _without_stderr([sys.executable, "-c", MAPPED_WITHOUT_STDERR], tmp_path)
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "stderr": True,
        "heard": [],  # no fallback: the child did the work
        "got": [[2 * n] for n in range(40)],
    }


def test_a_json_import_without_stderr_writes_only_json_to_stdout(repo: Path) -> None:
    lines = _lines(importer.DRAFT_ELSEWHERE_FROM + 10)
    (repo / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = _without_stderr([sys.executable, "-m", "recall", "--json", "import", "in.jsonl"], repo)
    out = [json.loads(line) for line in done.stdout.splitlines()]  # every line JSON
    assert len(out) == len(lines)
    assert sum(r["status"] == "created" for r in out) > 1000


def test_a_notice_without_stderr_is_not_put_on_stdout(repo: Path) -> None:
    done = _without_stderr([sys.executable, "-m", "recall", "--json", "list"], repo)
    assert json.loads(done.stdout) == []  # no store here yet: said on stderr, none here


PARENT = os.getpid()


def _leaves_quietly_at_three(chunk: list[int]) -> list[int]:
    if chunk == [3] and os.getpid() != PARENT:
        os._exit(0)  # a clean exit status, without the rest handed back
    return chunk


def test_a_child_ending_well_without_its_end_frame_has_failed() -> None:
    heard: list[str] = []
    chunks = [[n] for n in range(1, 7)]
    got = list(forked.mapped(_leaves_quietly_at_three, chunks, fork=True, fell_back=heard.append))
    assert got == chunks  # every chunk once: those the child did not hand back mapped here
    assert len(heard) == 1 and "exit status 0" in heard[0]
    assert not _children()


INTERRUPTED_AT_THE_FORK = """
import json, os, sys, time
from recall import forked

side = sys.argv[1]
parent = os.getpid()
fds = sorted(os.listdir("/proc/self/fd"))


def interrupted() -> None:
    # Ctrl-C as Python's handler raises it: at the next line of the code that forked
    caller = sys._getframe(1)

    def tracer(frame, event, arg):
        if event == "line":
            sys.settrace(None)
            frame.f_trace = None
            raise KeyboardInterrupt
        return tracer

    caller.f_trace = tracer
    sys.settrace(lambda *a: None)


os.register_at_fork(**{f"after_in_{side}": interrupted})


def work(chunk):
    time.sleep(0.002)
    return chunk


try:
    got = len(list(forked.mapped(work, [[n] for n in range(200)], fork=True)))
except KeyboardInterrupt:
    got = "interrupted"
try:
    os.waitpid(-1, os.WNOHANG)
    children = True
except ChildProcessError:
    children = False
print(json.dumps({"parent": os.getpid() == parent, "got": got, "children": children,
                  "fds": sorted(os.listdir("/proc/self/fd")) == fds}), flush=True)
"""


@pytest.mark.parametrize(
    ("side", "got"),
    [("child", 200), ("parent", "interrupted")],
)
def test_ctrl_c_at_the_fork_is_the_callers_alone_and_leaves_nothing(
    tmp_path: Path, side: str, got: object
) -> None:
    done = _without_stderr([sys.executable, "-c", INTERRUPTED_AT_THE_FORK, side], tmp_path)
    # one process came back to the caller: the parent, with all its results or interrupted
    said = [json.loads(line) for line in done.stdout.splitlines()]
    assert said == [{"parent": True, "got": got, "children": False, "fds": True}]
