"""Per-file history rows as they are being built: commit lists, counts and neighbours.

A row holds, for one file identity, every commit that touched it, how many of those were
small enough to count for co-change, and how many of those it shared with each other file.
Rows come from the index when they exist there, and are created empty otherwise.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from recall.genome.packing import unpack, unpack_near

# Values per ``IN (...)`` list, well under SQLite's limit on bound parameters.
SQL_CHUNK = 500


class FileRow:
    """One file identity's history; ``stored_pairs`` is how many neighbours it had stored."""

    __slots__ = ("commits", "near", "path", "seqs", "stored_pairs")

    def __init__(
        self, path: str, commits: int, seqs: list[int], near: dict[int, int], stored: int
    ) -> None:
        self.path = path
        self.commits = commits
        self.seqs = seqs
        self.near = near
        self.stored_pairs = stored


class FileRows:
    """The rows a refresh changes, read from the index (``conn``) on first use.

    Identities from ``first_new_id`` on are new in this refresh and never looked up.
    """

    def __init__(self, conn: sqlite3.Connection | None, first_new_id: int) -> None:
        self.conn = conn
        self.first_new_id = first_new_id
        self.rows: dict[int, FileRow] = {}

    def preload(self, idents: Iterable[int]) -> None:
        """Read the stored rows of ``idents`` in a few queries instead of one each."""
        if self.conn is None:
            return
        wanted = sorted({i for i in idents if i < self.first_new_id and i not in self.rows})
        for start in range(0, len(wanted), SQL_CHUNK):
            chunk = wanted[start : start + SQL_CHUNK]
            marks = ",".join("?" * len(chunk))
            for ident, path, commits, seqs, near in self.conn.execute(
                f"SELECT id, path, commits, seqs, near FROM genome_files WHERE id IN ({marks})",
                chunk,
            ):
                pairs = dict(unpack_near(near))
                self.rows[ident] = FileRow(path, commits, list(unpack(seqs)), pairs, len(pairs))

    def get(self, ident: int) -> FileRow:
        """The row of ``ident``: in memory, from the index, or new and empty."""
        row = self.rows.get(ident)
        if row is None:
            self.preload((ident,))
            row = self.rows.get(ident)
            if row is None:
                row = self.rows[ident] = FileRow("", 0, [], {}, 0)
        return row

    def count(
        self, seq: int, ids: list[int], eligible: bool, own: frozenset[int] = frozenset()
    ) -> None:
        """Record that commit ``seq`` touched ``ids``; count it for co-change if ``eligible``,
        pairing none of ``own`` (Tether's own files) with anything."""
        rows = self.rows
        paired = [ident for ident in ids if ident not in own] if own else ids
        for ident in ids:
            row = rows.get(ident) or self.get(ident)
            row.seqs.append(seq)
            if eligible:
                row.commits += 1
                if len(paired) > 1 and (not own or ident not in own):
                    near = row.near
                    for other in paired:
                        if other != ident:
                            near[other] = near.get(other, 0) + 1
