"""What FTS5 keeps about the word index besides its terms: the row count and each column's
total tokens (its "averages" record), and each row's column sizes (its docsize table)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator


def varint(blob: bytes, at: int) -> tuple[int, int]:
    """One SQLite varint (big-endian, 7 bits a byte, the ninth byte whole) and where it ends."""
    value = 0
    for _ in range(8):
        byte = blob[at]
        at += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at
    return (value << 8) | blob[at], at + 1


def column_totals(conn: sqlite3.Connection) -> tuple[int, int, int] | None:
    """Rows of ``fts_words`` and the tokens of its summary and details columns in all.

    FTS5 keeps the totals its own bm25 uses in one record of the data table (id 1: the row
    count, then each column's tokens, as varints); reading it costs one lookup, where
    counting would scan every memory. None when the record is missing or unreadable, or
    the index holds no row.
    """
    row = conn.execute("SELECT block FROM fts_words_data WHERE id = 1").fetchone()
    if row is None or not isinstance(row[0], bytes):
        return None
    try:
        rows, at = varint(row[0], 0)
        summary, at = varint(row[0], at)
        details, _ = varint(row[0], at)
    except IndexError:
        return None
    if rows <= 0:
        return None
    return rows, summary, details


ROW_SIZES = "SELECT id, sz FROM fts_words_docsize WHERE id IN (SELECT value FROM json_each(?))"
"""(rowid, docsize record) of the rowids bound as one JSON array."""


def row_sizes(conn: sqlite3.Connection, rowids: Iterable[int]) -> Iterator[tuple[int, int, int]]:
    """(rowid, summary tokens, details tokens) of each of ``rowids`` the word index holds, in
    one statement whatever their number."""
    return sizes_of(conn.execute(ROW_SIZES, (json.dumps(list(rowids)),)))


def sizes_of(records: Iterable[tuple[int, bytes]]) -> Iterator[tuple[int, int, int]]:
    """(rowid, summary tokens, details tokens) of each (rowid, docsize record)."""
    for rowid, sizes in records:
        summary, at = varint(sizes, 0) if sizes else (0, 0)
        details = varint(sizes, at)[0] if sizes and at < len(sizes) else 0
        yield rowid, summary, details
