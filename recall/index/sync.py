"""Bringing the index in line with the memory files: new, changed and removed files."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from recall import frontmatter
from recall.clock import format_timestamp
from recall.errors import BadInput, MalformedMemory
from recall.index import rows
from recall.memfiles import FileStat, MemoryFolder, file_sha
from recall.model import Memory
from recall.records import memory_from_parsed

PathNormalizer = Callable[[str], str]


@dataclass
class SyncReport:
    """What one sync changed in the index."""

    added: int = 0
    changed: int = 0
    removed: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def touched(self) -> bool:
        """Whether the sync changed anything."""
        return bool(self.added or self.changed or self.removed or self.problems)


def load_memory(
    folder: MemoryFolder, stat: FileStat, normalize: PathNormalizer
) -> tuple[Memory, str]:
    """Read and validate one memory file; return the memory and the file's byte hash.

    Paths in ``files`` are normalized for the index (the file itself is left as written).
    """
    data = folder.read_bytes(stat.name)
    where = folder.path / stat.name
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise MalformedMemory(where, line, "not valid UTF-8 text") from None
    parsed = frontmatter.parse(text, where)
    fallback = format_timestamp(datetime.fromtimestamp(stat.mtime_ns / 1e9, UTC))
    memory = memory_from_parsed(parsed, where, fallback_created=fallback)
    files: list[str] = []
    for index, raw in enumerate(memory.files):
        try:
            files.append(normalize(raw))
        except BadInput as error:
            line = parsed.key_lines.get("files", 1) + 1 + index
            raise MalformedMemory(where, line, str(error)) from None
    return memory.with_changes(files=tuple(dict.fromkeys(files))), file_sha(data)


def _known(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    known = {
        row[0]: (row[1], row[2])
        for row in conn.execute("SELECT name, mtime_ns, size FROM memories")
    }
    known.update(
        (row[0], (row[1], row[2]))
        for row in conn.execute("SELECT name, mtime_ns, size FROM problems")
    )
    return known


def sync(conn: sqlite3.Connection, folder: MemoryFolder, normalize: PathNormalizer) -> SyncReport:
    """Update the index from the folder; cheap when nothing changed (stats only, no reads)."""
    report = SyncReport()
    stats = folder.scan()
    known = _known(conn)
    on_disk = {s.name for s in stats}
    changed = [s for s in stats if known.get(s.name) != (s.mtime_ns, s.size)]
    gone = [name for name in known if name not in on_disk]
    if not changed and not gone:
        return report
    conn.execute("BEGIN IMMEDIATE")
    try:
        known = _known(conn)  # another process may have synced while we waited
        for name in gone:
            if name in known:
                rows.delete_by_name(conn, name)
                report.removed += 1
        for stat in sorted(changed, key=lambda s: s.name):
            if known.get(stat.name) == (stat.mtime_ns, stat.size):
                continue
            _sync_one(conn, folder, stat, normalize, stat.name in known, report)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return report


def _sync_one(
    conn: sqlite3.Connection,
    folder: MemoryFolder,
    stat: FileStat,
    normalize: PathNormalizer,
    was_known: bool,
    report: SyncReport,
) -> None:
    try:
        memory, sha = load_memory(folder, stat, normalize)
    except FileNotFoundError:
        rows.delete_by_name(conn, stat.name)
        return
    except MalformedMemory as problem:
        rows.delete_by_name(conn, stat.name)
        rows.record_problem(conn, stat, problem.line, problem.problem)
        report.problems.append(str(problem))
        return
    except OSError as error:
        rows.delete_by_name(conn, stat.name)
        rows.record_problem(conn, stat, 1, f"cannot be read: {error.strerror or error}")
        report.problems.append(f"{folder.path / stat.name}:1: cannot be read")
        return
    existing = conn.execute(
        "SELECT name, file_sha FROM memories WHERE id = ?", (memory.id,)
    ).fetchone()
    if existing is not None and existing["name"] != stat.name:
        rows.delete_by_name(conn, stat.name)
        message = f"duplicate id {memory.id}: {existing['name']} already uses it; give one a new id"
        rows.record_problem(conn, stat, 1, message)
        report.problems.append(f"{folder.path / stat.name}:1: {message}")
        return
    if existing is not None and existing["file_sha"] == sha:
        conn.execute(
            "UPDATE memories SET mtime_ns = ?, size = ? WHERE name = ?",
            (stat.mtime_ns, stat.size, stat.name),
        )
        return
    rows.delete_by_name(conn, stat.name)
    rows.insert_many(conn, [(memory, stat.name, stat, sha)])
    if was_known:
        report.changed += 1
    else:
        report.added += 1
