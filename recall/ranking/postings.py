"""The word index's counts held in memory for a long-lived process: which rows hold a term and
how often in each column, and each row's column lengths, read once per index state.

FTS5 computes its bm25 anew for every match of every query, with a size lookup and a walk of
the positions per row; on a real history a prompt's words match thousands of memories, and
that is most of a recall. Read once and kept, the same counts score the same formula over all
matches in a few array operations (:meth:`Postings.fts5_bm25`, equal to FTS5's own scores)
and give the per-column counts ``channels.field_bm25`` needs without a statement. A process
that answers one query and exits gains nothing from keeping them, and keeps FTS5's path.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Final, TypeAlias

import numpy as np

from recall.index import fts_stats
from recall.index.db import tuples

FTS5_K1: Final = 1.2
FTS5_B: Final = 0.75
"""The constants of FTS5's bm25 (fixed in SQLite's source), so the scores here equal its own."""

if TYPE_CHECKING:  # ``numpy.typing`` costs a first query about a millisecond to import
    import numpy.typing as npt

    Ints: TypeAlias = npt.NDArray[np.int64]
    Floats: TypeAlias = npt.NDArray[np.float64]
    Posting: TypeAlias = tuple[Ints, Ints, Ints]
"""Rows holding a term (ascending), and how often it occurs in each one's summary and details."""


def sorted_unique(values: Ints) -> Ints:
    """The distinct values, ascending: ``np.unique`` of plain integers, without the check for
    a masked array that imports ``numpy.ma`` (a sixth of a first query's time) on first use."""
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def is_member(values: Ints, members: Ints) -> npt.NDArray[np.bool_]:
    """Whether each of ``values`` is among ``members``: ``np.isin`` of plain integers, by a
    sorted search (``np.isin`` can fall back on ``np.unique``, see :func:`sorted_unique`)."""
    known = sorted_unique(members)
    if len(known) == 0:
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(known, values), len(known) - 1)
    return known[at] == values


def integers(joined: str) -> Ints:
    """The integers of a comma-separated list as SQLite's ``group_concat`` writes them, parsed
    in C (``str.split`` and a string per value cost several times as much on a common word)."""
    values = np.fromstring(joined, dtype=np.int64, sep=",")
    if len(values) != joined.count(",") + 1:  # it stops quietly at a trailing comma
        values = np.array(joined.split(","), dtype=np.int64)  # which this one refuses
    return values


def column_sizes(blobs: Sequence[bytes]) -> tuple[Ints, Ints] | None:
    """The summary and details tokens of each of FTS5's docsize records (two SQLite varints
    each), decoded for all at once; None when one is anything else (no record, one column,
    a varint of nine bytes), which :func:`fts_stats.sizes_of` then reads one by one."""
    if not blobs or not all(type(blob) is bytes for blob in blobs):
        return None
    widths = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
    data = np.frombuffer(b"".join(blobs), dtype=np.uint8)
    ends = np.flatnonzero(data < 0x80)  # the last byte of each varint
    if len(ends) != 2 * len(blobs) or not np.array_equal(ends[1::2], np.cumsum(widths) - 1):
        return None
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lengths = ends - starts + 1
    longest = int(lengths.max())
    if longest > 8:
        return None
    values = np.zeros(len(ends), dtype=np.int64)
    for byte in range(longest):
        more = lengths > byte
        values[more] = (values[more] << 7) | (data[starts[more] + byte] & 0x7F)
    return values[0::2], values[1::2]


class Postings:
    """Postings of the terms asked so far and lengths of the rows met so far, for one index
    state (the engine makes one per store and index generation, as it does the vocabulary)."""

    LIMIT: Final = 1_000_000
    """Postings kept before the memory is dropped and refilled (24 bytes each: about 24 MB);
    every term of networkmanager's 2,231 benchmark prompts over its 30k memories holds half."""

    MAX_ROWID: Final = 8_000_000
    """Largest rowid whose lengths are kept (in arrays indexed by rowid, 8 bytes a row); a
    store with larger rowids is scored by FTS5 itself."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        """Read counts from the word index of ``conn``."""
        self.conn = conn
        self._terms: dict[str, Posting] = {}
        self._held = 0
        self._summary: Ints = np.full(0, -1, dtype=np.int64)
        self._details: Ints = np.full(0, -1, dtype=np.int64)
        self._totals: tuple[int, int, int] | None = None
        self._instances = False
        self.statements = 0
        """Statements run so far (tests check that kept counts are not read again)."""

    def totals(self) -> tuple[int, int, int] | None:
        """FTS5's row count and column totals (see :func:`fts_stats.column_totals`)."""
        if self._totals is None:
            self.statements += 1
            self._totals = fts_stats.column_totals(self.conn)
        return self._totals

    def of(self, terms: Collection[str]) -> dict[str, Posting]:
        """The posting of each of ``terms`` (indexed terms, as the vocabulary lists them); the
        ones not kept yet are read in one statement."""
        asked = list(dict.fromkeys(terms))
        missing = [term for term in asked if term not in self._terms]
        if missing:
            if self._held > self.LIMIT:
                self._terms.clear()
                self._held = 0
                missing = asked
            self._load(missing)
        return {term: self._terms[term] for term in asked}

    def _load(self, terms: list[str]) -> None:
        if not self._instances:
            self.conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_words_instance "
                "USING fts5vocab(main, fts_words, 'instance')"
            )
            self._instances = True
        self.statements += 1
        # every occurrence as 2 * rowid, plus 1 in the details, joined: one value per term
        # crosses into Python, where a row per occurrence would cost far more
        found = {
            term: joined
            for term, joined in self.conn.execute(
                "SELECT term, group_concat(doc * 2 + (col <> 'summary')) "
                "FROM temp.fts_words_instance WHERE term IN (SELECT value FROM json_each(?)) "
                "GROUP BY term",
                (json.dumps(terms),),
            )
        }
        for term in terms:
            joined = found.get(term)
            coded = integers(joined) if joined else np.zeros(0, dtype=np.int64)
            rows, at = np.unique(coded >> 1, return_inverse=True)
            in_details = (coded & 1).astype(np.int64)
            details = np.bincount(at, weights=in_details, minlength=len(rows)).astype(np.int64)
            summary = np.bincount(at, minlength=len(rows)).astype(np.int64) - details
            self._terms[term] = (rows, summary, details)
            self._held += len(rows)

    def lengths(self, rows: Ints) -> tuple[Ints, Ints] | None:
        """Tokens in the summary and the details of each of ``rows`` (-1 for a row the index
        does not hold); the ones not kept yet are read in one statement. None when a rowid
        is past :attr:`MAX_ROWID`."""
        if len(rows) == 0:
            return rows, rows
        top = int(rows.max())
        if top > self.MAX_ROWID or int(rows.min()) < 0:
            return None
        if top >= len(self._summary):
            grown = max(top + 1, 2 * len(self._summary))
            for name in ("_summary", "_details"):
                old = getattr(self, name)
                new = np.full(grown, -1, dtype=np.int64)
                new[: len(old)] = old
                setattr(self, name, new)
        unknown = rows[self._summary[rows] < 0]
        if len(unknown):
            self.statements += 1
            found = (
                tuples(self.conn)
                .execute(fts_stats.ROW_SIZES, (json.dumps(unknown.tolist()),))
                .fetchall()
            )
            sizes = [record[1] for record in found]
            decoded = column_sizes(sizes)
            if decoded is None:  # not two short varints each: the general reader
                for rowid, summary, details in fts_stats.sizes_of(found):
                    self._summary[rowid] = summary
                    self._details[rowid] = details
            else:
                at = np.fromiter((record[0] for record in found), np.int64, count=len(found))
                self._summary[at], self._details[at] = decoded
            # a row the index does not hold stays unknown (-1) and is read again if asked
        return self._summary[rows], self._details[rows]

    def phrase(self, forms: Sequence[str]) -> Posting:
        """The posting of a query word matching any of ``forms``: the rows holding one of
        them, with the occurrences of all of them summed per column."""
        held = self.of(forms)
        if len(forms) == 1:
            return held[forms[0]]
        if not forms:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        parts = [held[form] for form in forms]
        rows, at = np.unique(np.concatenate([p[0] for p in parts]), return_inverse=True)
        summary = np.zeros(len(rows), dtype=np.int64)
        details = np.zeros(len(rows), dtype=np.int64)
        np.add.at(summary, at, np.concatenate([p[1] for p in parts]))
        np.add.at(details, at, np.concatenate([p[2] for p in parts]))
        return rows, summary, details

    def fts5_bm25(
        self, phrases: Sequence[Sequence[str]], weights: tuple[float, float]
    ) -> tuple[Ints, Floats] | None:
        """FTS5's ``bm25(summary weight, details weight)`` of every row matching any of
        ``phrases`` (each the indexed forms one query word matches), as FTS5 computes it for
        the OR of them: rows ascending, scores negative (FTS5's sign, best lowest).

        The formula and the order of its operations are FTS5's: each phrase's idf from the
        rows matching it and the index's row count, the row's length over the mean, the
        phrases summed in query order. None when the index's totals cannot be read or a
        row's length cannot be kept (the caller asks FTS5).
        """
        totals = self.totals()
        if totals is None:
            return None
        count, summary_total, details_total = totals
        self.of([form for forms in phrases for form in forms])  # the unread ones at once
        postings = [self.phrase(forms) for forms in phrases]
        matched = [p[0] for p in postings if len(p[0])]
        if not matched:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        rows = sorted_unique(np.concatenate(matched))
        lengths = self.lengths(rows)
        if lengths is None or bool((lengths[0] < 0).any()):
            return None
        size = (lengths[0] + lengths[1]).astype(np.float64)
        mean = float(summary_total + details_total) / float(count)
        k1, b = FTS5_K1, FTS5_B
        norm = k1 * ((1 - b) + (b * size) / mean)
        score = np.zeros(len(rows), dtype=np.float64)
        for phrase_rows, in_summary, in_details in postings:
            hits = len(phrase_rows)
            if not hits:
                continue
            idf = math.log((count - hits + 0.5) / (hits + 0.5))
            if idf <= 0.0:
                idf = 1e-6  # FTS5's floor
            freq = np.zeros(len(rows), dtype=np.float64)
            freq[np.searchsorted(rows, phrase_rows)] = (
                in_summary * weights[0] + in_details * weights[1]
            )
            score = score + idf * ((freq * (k1 + 1.0)) / (freq + norm))
        return rows, -1.0 * score
