"""A large import forks its drafting process while other threads run and hold locks: a
progress bar refreshing on its own thread (as ``tether import`` shows it), a thread stuck
writing to standard output (its buffer's lock held), one holding a logging handler's lock and
one holding the lock Python 3.11 takes to make any memory's content hash. A lock held at the
fork stays held in the child for good, so a child that took one would never end: the import
runs in a process of its own, bounded by a timeout, and must give the results, files and
index rows of an import drafted in one process.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import make_repo

from recall import forked, importer
from recall.importer import import_lines
from recall.locations import project_location
from recall.store import MemoryStore
from tests.test_write_behind import TABLES, _files, _lines

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="drafting forks on Linux only")

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 25.0
"""A bound on the import on a loaded machine; a deadlocked child never ends at all."""


def _import_lines() -> list[str]:
    lines = _lines(importer.DRAFT_ELSEWHERE_FROM + 300)
    for n in (700, 1100, 1250):  # paths first met after the first chunk: normalized in the child
        record = {"summary": f"late {n}", "category": "context", "files": [f"src/late{n}.py"]}
        lines[n] = json.dumps(
            record | {"id": f"{0xA0000000 + n:08x}", "created": "2024-03-01T10:00:00Z"}
        )
    return lines


def _dumped(store: MemoryStore, results: list[dict[str, object]]) -> dict[str, object]:
    rows = {
        name: [
            [v.hex() if isinstance(v, bytes) else v for v in row] for row in store.conn.execute(sql)
        ]
        for name, sql in TABLES.items()
    }
    files = {name: text.decode("utf-8") for name, text in _files(store).items()}
    return {"results": results, "files": files, "rows": rows}


def scenario(repo: str, lines_path: str, out_path: str) -> None:
    """The import beside the threads and their locks (run in a process of its own)."""
    import io
    import logging
    import threading
    import time

    from rich.console import Console
    from rich.progress import Progress

    from recall.model import Memory

    forked_yet = threading.Event()  # set once the import has forked: the locks may go
    holding: list[threading.Event] = []

    def hold(acquire: Callable[[], object], release: Callable[[], object]) -> None:
        held = threading.Event()
        holding.append(held)

        def run() -> None:
            acquire()
            held.set()
            forked_yet.wait()
            release()

        threading.Thread(target=run, daemon=True).start()

    def progress(label: str, done: int, total: int | None) -> None:
        forked_yet.set()  # the store writes only after the first chunk's fork
        if label not in tasks:
            tasks[label] = bar.add_task(label, total=total)
        bar.update(tasks[label], completed=done, total=total)  # type: ignore[arg-type]

    store = MemoryStore(
        project_location(Path(repo), create_at_cwd=True),
        notice=lambda message: os.write(2, f"{message}\n".encode()),  # no lock of a stream
    )
    parent = os.getpid()

    def normalize(raw: str) -> str:
        if os.getpid() != parent:  # in the child: what a stray print or log line would take
            print(f"drafting {raw}")
            print(f"drafting {raw} (standard error)", file=sys.stderr)
            logging.getLogger("scenario").warning("drafting %s", raw)
        return store.normalize_input(raw, Path(repo))

    # as ``tether import`` shows it: standard output and error go through the bar's console
    bar = Progress(console=Console(file=io.StringIO(), force_terminal=True), refresh_per_second=50)
    tasks: dict[str, object] = {}
    with bar:
        hold(bar.console._lock.acquire, bar.console._lock.release)
        # standard output: a pipe nobody reads until the fork, a thread stuck writing to it
        read_end, write_end = os.pipe()
        sys.stdout = open(write_end, "w", buffering=1)  # noqa: SIM115 - this process's stdout
        threading.Thread(
            target=sys.stdout.buffer.write, args=(b"x" * (1 << 20),), daemon=True
        ).start()

        def drain() -> None:
            forked_yet.wait()
            while os.read(read_end, 1 << 16):
                pass

        threading.Thread(target=drain, daemon=True).start()
        handler = logging.StreamHandler(io.StringIO())
        logging.getLogger("scenario").addHandler(handler)
        hold(handler.acquire, handler.release)
        hash_lock = Memory.__dict__["content_hash"].lock
        hold(hash_lock.acquire, hash_lock.release)
        for held in holding:
            held.wait()
        while not _pipe_full(read_end):  # the writer is in the pipe's write, its lock held
            time.sleep(0.01)
        lines = Path(lines_path).read_text(encoding="utf-8").split("\n")
        results = import_lines(store, lines, normalize, "tester", progress)
    dumped = _dumped(store, [r.to_dict() for r in results])
    Path(out_path).write_text(json.dumps(dumped), encoding="utf-8")
    os._exit(0)  # what the threads left behind is not flushed


def _pipe_full(read_end: int) -> bool:
    import fcntl
    import termios

    waiting = fcntl.ioctl(read_end, termios.FIONREAD, b"\0\0\0\0")
    return int.from_bytes(waiting, sys.byteorder) >= fcntl.fcntl(read_end, 1032)  # F_GETPIPE_SZ


def test_an_import_forking_beside_threads_holding_locks_completes_the_same(
    tmp_path: Path,
) -> None:
    lines = _import_lines()
    lines_path = tmp_path / "lines.jsonl"
    lines_path.write_text("\n".join(lines), encoding="utf-8")
    out_path = tmp_path / "out.json"
    repo = make_repo(tmp_path / "threads")
    code = f"from tests.test_fork_beside_threads import scenario; scenario({str(repo)!r}, "
    code += f"{str(lines_path)!r}, {str(out_path)!r})"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # the child it forks goes with it on a timeout
    )
    try:
        _, stderr = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("the import beside the threads never ended: a lock held at the fork")
    assert process.returncode == 0, stderr.decode()
    # the child's prints went to a stream of its own, on the standard error's descriptor
    assert b"drafting src/late700.py\n" in stderr
    assert b"drafting src/late1250.py (standard error)\n" in stderr

    here_repo = make_repo(tmp_path / "here")
    here = MemoryStore(project_location(here_repo, create_at_cwd=True), notice=lambda _m: None)
    here_results = import_lines(
        here,
        lines,
        lambda raw: here.normalize_input(raw, here_repo),
        "tester",
        draft_elsewhere_from=10**9,
    )
    expected = json.loads(json.dumps(_dumped(here, [r.to_dict() for r in here_results])))
    assert json.loads(out_path.read_text(encoding="utf-8")) == expected
    here.close()
