"""Full-text search for people: both FTS5 indexes, every token required, best matches first."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from recall.index import fts, rows
from recall.model import Memory


@dataclass(frozen=True)
class SearchHit:
    """A memory found by text, with the bm25 score (lower is better) and the index that found it."""

    memory: Memory
    score: float
    matched_by: str


def _run(
    conn: sqlite3.Connection, table: str, expression: str, limit: int
) -> list[tuple[int, float]]:
    query = (
        f"SELECT rowid, bm25({table}, 2.0, 1.0) AS score FROM {table} "
        f"WHERE {table} MATCH ? ORDER BY score LIMIT ?"
    )
    return [(r[0], r[1]) for r in conn.execute(query, (expression, limit))]


def search(
    conn: sqlite3.Connection, text: str, *, limit: int = 20, status: str = "active"
) -> list[SearchHit]:
    """Find memories whose summary or details hold every word (or substring) of ``text``."""
    found: dict[int, tuple[float, str]] = {}
    words = fts.match_expression(fts.word_tokens(text), "AND")
    if words:
        for rowid, score in _run(conn, "fts_words", words, limit * 4):
            found[rowid] = (score, "words")
    grams = fts.match_expression(fts.trigram_tokens(text), "AND")
    if grams:
        for rowid, score in _run(conn, "fts_trigram", grams, limit * 4):
            if rowid not in found:
                found[rowid] = (score, "substring")
    if not found:
        return []
    marks = ",".join("?" * len(found))
    query = f"SELECT * FROM memories WHERE rowid IN ({marks})"
    params: list[object] = list(found)
    if status != "all":
        query += " AND status = ?"
        params.append(status)
    hits = [
        SearchHit(rows.memory_from_row(r), found[r["rowid"]][0], found[r["rowid"]][1])
        for r in conn.execute(query, params)
    ]
    hits.sort(key=lambda h: (h.matched_by != "words", h.score))
    return hits[:limit]
