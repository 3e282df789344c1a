"""The floor of a bulk import, measured on the same texts in the same run: bare atomic file
writes (temp file + rename, the same names and bytes, one sync at the end) and one FTS5
trigram insert of the same summaries and details in one transaction.

Each part reports wall time and this process's CPU time (user + system): on a shared machine
wall time follows the load, CPU time much less so.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Cost:
    """Wall and CPU seconds of one measured step (``user``: the part of ``cpu`` spent in user
    space; the rest is kernel time, which on a shared machine swings the most)."""

    wall: float
    cpu: float
    user: float = 0.0

    @property
    def system(self) -> float:
        """Kernel CPU seconds."""
        return self.cpu - self.user

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.wall + other.wall, self.cpu + other.cpu, self.user + other.user)


def cpu_seconds() -> float:
    """User + system CPU time of this process so far."""
    times = os.times()
    return times.user + times.system


def user_seconds() -> float:
    """User CPU time of this process so far."""
    return os.times().user


def child_cpu_seconds() -> float:
    """User + system CPU time of this process's finished children so far."""
    times = os.times()
    return times.children_user + times.children_system


def child_user_seconds() -> float:
    """User CPU time of this process's finished children so far."""
    return os.times().children_user


def file_writes(folder: Path, target: Path) -> Cost:
    """Write every file of ``folder`` again into the new folder ``target``, bare."""
    target.mkdir()
    payload = [(e.name, Path(e.path).read_bytes()) for e in os.scandir(folder) if e.is_file()]
    wall, cpu, user = time.perf_counter(), cpu_seconds(), user_seconds()
    for name, data in payload:
        temp = target / f".tmp-{name}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, data)
        os.close(fd)
        os.rename(temp, target / name)
    os.sync()
    return Cost(time.perf_counter() - wall, cpu_seconds() - cpu, user_seconds() - user)


PROBE_FILES = 2000
"""Files the create probe makes: enough to show the file system's state (0.1-1 s), few
enough not to change it much."""


def create_probe(folder: Path, count: int = PROBE_FILES) -> float:
    """Microseconds per empty file created in the new folder ``folder``: what a new file
    costs the file system right now. On ext4 without a journal, each create first skips every
    inode freed in the last 60 s (360 s while its inode table block is unwritten), so files
    created soon after many were deleted cost several times the usual; the probe shows that
    state beside the figures it would skew. The files are left in place: deleting them would
    make the same state for what comes next."""
    folder.mkdir(parents=True)
    start = time.perf_counter()
    for n in range(count):
        os.close(os.open(folder / f"p{n}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    return (time.perf_counter() - start) / count * 1e6


def trigram_insert(rows: Sequence[tuple[str, str]], path: Path) -> Cost:
    """Insert ``(summary, details)`` rows into a new FTS5 trigram table in one transaction."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(summary, details, tokenize = 'trigram')")
        wall, cpu, user = time.perf_counter(), cpu_seconds(), user_seconds()
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO t(summary, details) VALUES(?, ?)", rows)
        conn.execute("COMMIT")
        return Cost(time.perf_counter() - wall, cpu_seconds() - cpu, user_seconds() - user)
    finally:
        conn.close()


def import_floor(folder: Path, rows: Sequence[tuple[str, str]], work: Path) -> tuple[Cost, Cost]:
    """(file writes, trigram insert) of the memory files in ``folder`` and their texts,
    in scratch space under the new folder ``work``."""
    work.mkdir(parents=True)
    return file_writes(folder, work / "files"), trigram_insert(rows, work / "floor.db")


def import_floor_process(
    folder: Path, rows: Sequence[tuple[str, str]], work: Path
) -> tuple[Cost, Cost]:
    """:func:`import_floor` in a new process, as the import it is compared with runs: the
    first thousands of files a process creates can cost it several times the kernel time of
    later ones on a loaded machine, so both sides start alike."""
    work.mkdir(parents=True)
    rows_file = work / "rows.json"
    rows_file.write_text(json.dumps(list(rows)), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "bench.floors", str(folder), str(rows_file), str(work / "run")],
        capture_output=True,
        text=True,
        check=True,
    )
    files, trigram = json.loads(done.stdout)
    return Cost(*files), Cost(*trigram)


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.floors FOLDER ROWS_JSON WORK``: print the floor's two costs as JSON."""
    folder, rows_file, work = (argv if argv is not None else sys.argv[1:])[:3]
    rows = [tuple(r) for r in json.loads(Path(rows_file).read_text(encoding="utf-8"))]
    files, trigram = import_floor(Path(folder), rows, Path(work))
    print(json.dumps([[c.wall, c.cpu, c.user] for c in (files, trigram)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
