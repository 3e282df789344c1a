"""Writing memory records into the index tables (memories, memory_files and both FTS tables)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

from recall.anchors.symbols import anchors_column, anchors_from_column, leaf_of, normalize_name
from recall.index.schema import NEW_INDEX_ID
from recall.memfiles import FileStat
from recall.model import Memory, summary_key

_INSERT = """
INSERT INTO memories(rowid, id, name, category, summary, details, files, anchor, anchors, pinned,
    guard, status, supersedes, superseded_by, created, author, source, content_hash, secret,
    summary_key, mtime_ns, size, file_sha)
VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""


# A batch of at least this many rows per row already indexed has the secondary indexes of the
# memories and files tables dropped and built again after its rows are in (one sort each)
# instead of kept up to date row by row (random B-tree inserts): on an empty store, as at a
# first import, that halves the cost of those rows; on a large store a small batch keeps them.
REBUILD_INDEXES_FROM = 1.0

FTS5_AUTOMERGE_DEFAULT = 4
"""FTS5's own ``automerge`` when a table was never given one, set back after a bulk write."""

_SECONDARY_INDEXES = """
SELECT name, sql FROM sqlite_master
WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('memories', 'memory_files')
"""


def delete_by_name(conn: sqlite3.Connection, name: str) -> None:
    """Remove the index rows of the memory file ``name`` (no-op when absent)."""
    row = conn.execute("SELECT rowid FROM memories WHERE name = ?", (name,)).fetchone()
    if row is not None:
        delete_rowids(conn, [row[0]])
    conn.execute("DELETE FROM problems WHERE name = ?", (name,))


def delete_rowids(conn: sqlite3.Connection, rowids: list[int]) -> None:
    """Remove memories by index rowid from every table that holds them."""
    params = [(r,) for r in rowids]
    conn.executemany("DELETE FROM memories WHERE rowid = ?", params)
    conn.executemany("DELETE FROM memory_files WHERE memory_rowid = ?", params)
    conn.executemany("DELETE FROM memory_anchors WHERE memory_rowid = ?", params)
    conn.executemany("DELETE FROM fts_words WHERE rowid = ?", params)
    conn.executemany("DELETE FROM fts_trigram WHERE rowid = ?", params)
    conn.executemany("DELETE FROM vectors WHERE memory_rowid = ?", params)
    bump_generation(conn)


def files_column(files: tuple[str, ...]) -> str:
    """A memory's files as the ``files`` column holds them (a JSON array)."""
    return json.dumps(list(files))


def insert_many(
    conn: sqlite3.Connection, items: Iterable[tuple[Memory, str, FileStat, str]]
) -> list[int]:
    """Insert (memory, file name, file stat, file sha) rows; return their new rowids."""
    rowid = first_rowid(conn)
    numbered = [(rowid + n, *item) for n, item in enumerate(items)]
    insert_records(conn, numbered)
    insert_texts(conn, [(r[0], r[1]) for r in numbered])
    return [r[0] for r in numbered]


def first_rowid(conn: sqlite3.Connection) -> int:
    """The rowid the next new memory takes (those after it follow in order)."""
    return int(conn.execute("SELECT coalesce(max(rowid), 0) + 1 FROM memories").fetchone()[0])


def insert_records(
    conn: sqlite3.Connection, items: Sequence[tuple[int, Memory, str, FileStat, str]]
) -> None:
    """Insert the ``memories`` and ``memory_files`` rows of (rowid, memory, file name, file
    stat, file sha); with :func:`insert_texts` of the same rowids, a memory is indexed."""
    memory_rows = [
        (rowid, memory.id, name, *record_fields(memory), stat.mtime_ns, stat.size, sha)
        for rowid, memory, name, stat, sha in items
    ]
    insert_rows(conn, memory_rows, file_rows((item[0], item[1]) for item in items))


def record_fields(memory: Memory) -> tuple[object, ...]:
    """The ``memories`` columns of ``memory`` between its file's name and its file's stat
    (``category`` to ``content_hash``, then ``secret`` and ``summary_key``): a bulk write makes
    them while its files are written."""
    return (
        memory.category,
        memory.summary,
        memory.details,
        files_column(memory.files),
        memory.anchor,
        anchors_column(memory.anchors),
        int(memory.pinned),
        int(memory.guard),
        memory.status,
        memory.supersedes,
        memory.superseded_by,
        memory.created,
        memory.author,
        memory.source,
        memory.content_hash,
        int(memory.holds_secret),
        summary_key(memory.summary),
    )


def file_rows(items: Iterable[tuple[int, Memory]]) -> list[tuple[int, str]]:
    """The ``memory_files`` rows of (rowid, memory): one per distinct file, in order."""
    return [(rowid, path) for rowid, memory in items for path in dict.fromkeys(memory.files)]


def insert_rows(
    conn: sqlite3.Connection,
    memory_rows: Sequence[tuple[object, ...]],
    files: Sequence[tuple[int, str]],
) -> None:
    """Insert ``memories`` rows (every column, in the table's order) and ``memory_files`` rows
    made by :func:`insert_records` or a bulk write; a batch large for the table builds the
    secondary indexes after its rows."""
    dropped = drop_indexes_for(conn, len(memory_rows))
    add_rows(conn, memory_rows, files)
    restore_indexes(conn, dropped)
    bump_generation(conn)


def drop_indexes_for(conn: sqlite3.Connection, coming: int) -> list[tuple[str, str]]:
    """In the caller's transaction, before ``coming`` new ``memories`` rows: drop the
    secondary indexes of the memories and files tables when the rows are many for the table
    (:data:`REBUILD_INDEXES_FROM`), and the full-text tables' merging as rows come in; return
    what :func:`restore_indexes` builds again and sets back after them (a rollback restores
    them too)."""
    if not conn.in_transaction or coming <= 1:
        return []
    indexed = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    if coming < REBUILD_INDEXES_FROM * max(indexed, 1):
        return []
    dropped = conn.execute(_SECONDARY_INDEXES).fetchall()
    for index_name, _sql in dropped:
        conn.execute(f'DROP INDEX "{index_name}"')
    return dropped + [_merge_later(conn, table) for table in ("fts_words", "fts_trigram")]


def _merge_later(conn: sqlite3.Connection, table: str) -> tuple[str, str]:
    """Turn off the full-text table's merging of its segments as rows come in, until the
    returned statement (for :func:`restore_indexes`) sets it back: a bulk write's segments
    are merged only when there are many (FTS5's crisis merge), which spends about a seventh
    less of the insert's CPU on a whole history and leaves its queries as fast."""
    found = conn.execute(f"SELECT v FROM {table}_config WHERE k = 'automerge'").fetchone()
    conn.execute(f"INSERT INTO {table}({table}, rank) VALUES('automerge', 0)")
    before = int(found[0]) if found else FTS5_AUTOMERGE_DEFAULT
    return f"{table} automerge", f"INSERT INTO {table}({table}, rank) VALUES('automerge', {before})"


def add_rows(
    conn: sqlite3.Connection,
    memory_rows: Sequence[tuple[object, ...]],
    files: Sequence[tuple[int, str]],
) -> None:
    """Insert ``memories`` and ``memory_files`` rows, nothing else (the caller restores any
    index it dropped and counts the change: :func:`insert_rows` does both)."""
    conn.executemany(_INSERT, memory_rows)
    conn.executemany("INSERT INTO memory_files(memory_rowid, path) VALUES(?, ?)", files)


def restore_indexes(conn: sqlite3.Connection, dropped: Sequence[tuple[str, str]]) -> None:
    """Build again the indexes :func:`drop_indexes_for` dropped (and turn the full-text
    tables' merging back on)."""
    for _name, sql in dropped:
        conn.execute(sql)


def insert_texts(conn: sqlite3.Connection, items: Sequence[tuple[int, Memory]]) -> None:
    """Insert the full-text and anchor rows of (rowid, memory): the part of a memory's
    index rows that needs nothing of its file, so a bulk write makes it while the file is
    written."""
    text_rows = [(rowid, m.summary, m.details) for rowid, m in items]
    anchor_rows: list[tuple[int, str, str, str]] = []
    for rowid, memory in items:
        for anchor in memory.anchors:
            name = normalize_name(anchor.name)
            anchor_rows.append((rowid, anchor.path, name, leaf_of(name)))
    conn.executemany(
        "INSERT INTO memory_anchors(memory_rowid, path, name, leaf) VALUES(?, ?, ?, ?)",
        anchor_rows,
    )
    conn.executemany("INSERT INTO fts_words(rowid, summary, details) VALUES(?, ?, ?)", text_rows)
    conn.executemany("INSERT INTO fts_trigram(rowid, summary, details) VALUES(?, ?, ?)", text_rows)


def bump_generation(conn: sqlite3.Connection) -> None:
    """Count a change to the memories table, so caches derived from it know they are stale."""
    conn.execute(
        "INSERT INTO meta(key, value) VALUES('generation', '1') "
        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
    )
    # An index created before indexes were given an identity at creation gets one with its
    # first change, inside the writer's transaction like the count itself.
    conn.execute(f"INSERT OR IGNORE INTO meta(key, value) VALUES('index_id', {NEW_INDEX_ID})")


def generation(conn: sqlite3.Connection) -> int:
    """How many times the memories table has changed (see :func:`bump_generation`)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    return int(row[0]) if row else 0


def index_stamp(conn: sqlite3.Connection) -> str:
    """The state of the memories table as ``<index id>-<generation>`` (``a1b2c3d4-17``).

    The generation alone restarts when the index is rebuilt (:meth:`MemoryStore.reindex`,
    a recovery) and can end where the old index stood, with other rowids; the identity is
    drawn anew with every index, so a stamp is never reused by another rowid assignment.
    An index that has no identity yet (made by an older version, unchanged since) reads
    ``0``, which no drawn identity is.
    """
    found = dict(
        conn.execute("SELECT key, value FROM meta WHERE key IN ('index_id', 'generation')")
    )
    return f"{found.get('index_id') or '0'}-{int(found.get('generation') or 0)}"


def record_problem(conn: sqlite3.Connection, stat: FileStat, line: int, message: str) -> None:
    """Remember that a memory file is malformed, so it is reported without being re-read."""
    conn.execute(
        "INSERT OR REPLACE INTO problems(name, line, message, mtime_ns, size) VALUES(?,?,?,?,?)",
        (stat.name, line, message, stat.mtime_ns, stat.size),
    )


def memory_from_row(row: sqlite3.Row) -> Memory:
    """Rebuild a :class:`Memory` from a ``memories`` row (its stored content hash included)."""
    memory = Memory(
        id=row["id"],
        category=row["category"],
        summary=row["summary"],
        details=row["details"],
        files=tuple(json.loads(row["files"])),
        anchor=row["anchor"],
        anchors=anchors_from_column(row["anchors"]),
        pinned=bool(row["pinned"]),
        guard=bool(row["guard"]),
        status=row["status"],
        supersedes=row["supersedes"],
        superseded_by=row["superseded_by"],
        created=row["created"],
        author=row["author"],
        source=row["source"],
    )
    memory.__dict__["content_hash"] = row["content_hash"]  # fills the cached property
    memory.__dict__["holds_secret"] = bool(row["secret"])  # scanned when it was indexed
    return memory
