"""One memory file read into the index: parsed and checked, its row written, or the problem
that keeps it out recorded (and said)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from recall.anchors.symbols import anchors_column
from recall.clock import format_timestamp
from recall.errors import BadInput, MalformedMemory
from recall.index import rows
from recall.memfiles import (
    MEMORY_SUFFIX,
    FileStat,
    MemoryFolder,
    OversizedFile,
    file_sha,
    limit_problem,
)
from recall.model import Memory, summary_key

PathNormalizer = Callable[[str], str]
Added = Callable[[str], str | None]  # when git says a memory file was added (first_added)

RECHECK = -1
"""A stored mtime no real file has: the next scan of the folder reads that file again."""
_DUPLICATE_ID = "duplicate id"
"""How the problem recorded for a file repeating another's id starts (found by it again)."""


def load_memory(
    folder: MemoryFolder,
    stat: FileStat,
    normalize: PathNormalizer,
    created: str | None = None,
    added: Added | None = None,
) -> tuple[Memory, str]:
    """Read and validate one memory file; return the memory and the file's byte hash.

    Paths in ``files`` are normalized for the index (the file itself is left as written).
    ``created`` and ``added`` stand for a ``created:`` the file lacks (see
    :func:`memory_from_text`).
    """
    where = folder.path / stat.name
    if stat.size > folder.max_bytes:  # never read whole: say so from the size alone
        raise MalformedMemory(where, 1, limit_problem(stat.size, folder.max_bytes))
    try:
        data = folder.read_bytes(stat.name)
    except OversizedFile as error:  # grew since it was listed
        raise MalformedMemory(where, 1, str(error)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise MalformedMemory(where, line, "not valid UTF-8 text") from None
    return memory_from_text(text, where, stat, normalize, created, added), file_sha(data)


def indexed_created(conn: sqlite3.Connection, name: str) -> str | None:
    """The creation time the index holds for the memory file ``name``, if it holds it."""
    row = conn.execute("SELECT created FROM memories WHERE name = ?", (name,)).fetchone()
    return row[0] if row is not None else None


def memory_from_text(
    text: str,
    where: Path,
    stat: FileStat,
    normalize: PathNormalizer,
    created: str | None = None,
    added: Added | None = None,
) -> Memory:
    """Parse and validate the text of a memory file; ``files`` come back normalized, followed
    by the files of its anchors that ``files`` does not name.

    A file with no ``created:`` (one written by hand) is dated ``created`` when given (what
    the index held for it: a pin, an unpin or an edit touches the file, and must not make
    the memory new), else by the commit that added the file when ``added`` knows it (asked
    only for such a file), else by the file's modification time. Its file is never written
    to."""
    # imported here: a sync that finds every file unchanged (as before each hook) parses none
    from recall import frontmatter
    from recall.records import memory_from_parsed

    parsed = frontmatter.parse(text, where)
    if created is None and added is not None and parsed.fields.get("created") in (None, ""):
        created = added(where.name)
    fallback = created or format_timestamp(datetime.fromtimestamp(stat.mtime_ns / 1e9, UTC))
    memory = memory_from_parsed(parsed, where, fallback_created=fallback)
    files: list[str] = []
    for index, raw in enumerate(memory.files):
        try:
            files.append(normalize(raw))
        except BadInput as error:
            line = _files_item_line(text, parsed.key_lines.get("files", 1), index)
            raise MalformedMemory(where, line, str(error)) from None
    # the memory is about the files its anchors are in, as a write or an import records them
    # in ``files``; a file written by hand may leave them out, and is read so, not rewritten
    for anchor in memory.anchors:
        if anchor.path in files:  # the usual case: named in ``files`` as the engine writes it
            continue
        try:
            files.append(normalize(anchor.path))
        except BadInput as error:
            line = parsed.key_lines.get("anchors", 1)
            raise MalformedMemory(where, line, f"anchor {anchor.text!r}: {error}") from None
    return memory.with_changes(files=tuple(dict.fromkeys(files)))


def _files_item_line(text: str, key_line: int, index: int) -> int:
    """The 1-based line of item ``index`` of ``files``, whose key is on ``key_line``: the key's
    own line when the list is written on it (``files: [a.py, b.py]``), else one line an item
    below it, as Tether writes it."""
    lines = text.split("\n", key_line)
    on_key_line = lines[key_line - 1].partition(":")[2] if len(lines) >= key_line else ""
    if on_key_line.split("#", 1)[0].strip():
        return key_line
    return key_line + 1 + index


def sync_one(
    conn: sqlite3.Connection,
    folder: MemoryFolder,
    stat: FileStat,
    normalize: PathNormalizer,
    problems: list[str],
    added: Added | None = None,
) -> bool:
    """Index the memory file ``stat`` as it is now (its row, or its problem, said in
    ``problems``); tell whether its row was added or changed. A file with no ``created:``
    keeps the time its row had, or takes the date ``added`` gives (see
    :func:`memory_from_text`)."""
    try:
        before = indexed_created(conn, stat.name)
        memory, sha = load_memory(folder, stat, normalize, before, added)
    except FileNotFoundError:
        rows.delete_by_name(conn, stat.name)
        return False
    except MalformedMemory as problem:
        rows.delete_by_name(conn, stat.name)
        rows.record_problem(conn, stat, problem.line, problem.problem)
        problems.append(str(problem))
        return False
    except OSError as error:
        rows.delete_by_name(conn, stat.name)
        rows.record_problem(conn, stat, 1, f"cannot be read: {error.strerror or error}")
        problems.append(f"{folder.path / stat.name}:1: cannot be read")
        return False
    existing = conn.execute(
        "SELECT name, file_sha, files, guard, anchors, size, created, content_hash FROM memories "
        "WHERE id = ?",
        (memory.id,),
    ).fetchone()
    if existing is not None and existing["name"] != stat.name:
        # Two files, one id (a file copied to start a new one): the file named after the id
        # holds it, whichever was read first, so the answer never depends on the order of a
        # scan; the other is reported, and read again at every scan until the clash is gone.
        if stat.name == f"{memory.id}{MEMORY_SUFFIX}":
            rows.delete_by_name(conn, existing["name"])
            other = FileStat(existing["name"], RECHECK, existing["size"])
            _clash(conn, folder, other, memory.id, stat.name, problems)
            existing = None
        else:
            rows.delete_by_name(conn, stat.name)
            recheck = stat._replace(mtime_ns=RECHECK)
            _clash(conn, folder, recheck, memory.id, existing["name"], problems)
            return False
    if existing is not None and _same_row(existing, memory, sha):
        # the scan's verdict too: an index migrated from before it was kept says none; and
        # ``created`` in UTC, which an index migrated from before kept as the file wrote it;
        # and the summary's key, which an index migrated from before it left empty
        conn.execute(
            "UPDATE memories SET mtime_ns = ?, size = ?, secret = ?, created = ?, "
            "summary_key = ? WHERE name = ?",
            (
                stat.mtime_ns,
                stat.size,
                int(memory.holds_secret),
                memory.created,
                summary_key(memory.summary),
                stat.name,
            ),
        )
        return existing["created"] != memory.created
    rows.delete_by_name(conn, stat.name)
    rows.insert_many(conn, [(memory, stat.name, stat, sha)])
    return True


def _clash(
    conn: sqlite3.Connection,
    folder: MemoryFolder,
    stat: FileStat,
    memory_id: str,
    holder: str,
    problems: list[str],
) -> None:
    """Report the memory file ``stat`` left out because ``holder`` has its id."""
    from recall.frontmatter import file_key_line  # a clash is rare: read only then

    message = f"{_DUPLICATE_ID} {memory_id}: {holder} already uses it; give one a new id"
    line = file_key_line(folder.path / stat.name, "id")
    rows.record_problem(conn, stat, line, message)
    problems.append(f"{folder.path / stat.name}:{line}: {message}")


def duplicates_of(conn: sqlite3.Connection, memory_id: str) -> list[str]:
    """The memory files left out of the index because another file holds ``memory_id``, the
    id they hold too (what ``tether doctor`` reports as a duplicate id), by name."""
    prefix = f"{_DUPLICATE_ID} {memory_id}:"
    rows = conn.execute(
        "SELECT name FROM problems WHERE substr(message, 1, ?) = ? ORDER BY name",
        (len(prefix), prefix),
    )
    return [str(row[0]) for row in rows]


def _same_row(existing: sqlite3.Row, memory: Memory, sha: str) -> bool:
    """Whether the indexed row already says what the file says. The same bytes normally do; an
    index migrated from before guards and symbol anchors has neither, and one from before a
    memory was tied to its anchors' files lacks them, so a file that set them by hand then is
    indexed again (the migration has every file read once for this); and one from before a
    lone CR ended the summary's line holds the summary and details read otherwise (its
    migration has those files read once)."""
    return (
        existing["file_sha"] == sha
        and existing["content_hash"] == memory.content_hash
        and existing["files"] == rows.files_column(memory.files)
        and existing["guard"] == int(memory.guard)
        and existing["anchors"] == anchors_column(memory.anchors)
    )
