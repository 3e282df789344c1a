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
    conn: sqlite3.Connection, table: str, expression: str, limit: int, status: str
) -> list[tuple[int, float]]:
    # Filter by status inside the FTS query, so inactive matches cannot crowd out the limit.
    where = f"{table} MATCH ?"
    params: list[object] = [expression]
    if status != "all":
        where += " AND rowid IN (SELECT rowid FROM memories WHERE status = ?)"
        params.append(status)
    query = (
        f"SELECT rowid, bm25({table}, 2.0, 1.0) AS score FROM {table} "
        f"WHERE {where} ORDER BY score LIMIT ?"
    )
    return [(r[0], r[1]) for r in conn.execute(query, (*params, limit))]


def _holds(memory: Memory, chunks: list[str]) -> bool:
    """Whether every chunk occurs in the memory's text (case-insensitively)."""
    text = f"{memory.summary}\n{memory.details}".casefold()
    return all(chunk.casefold() in text for chunk in chunks)


def search(
    conn: sqlite3.Connection, text: str, *, limit: int = 20, status: str = "active"
) -> list[SearchHit]:
    """Find memories whose summary or details hold every word (or substring) of ``text``."""
    text = text.replace("\x00", " ")  # SQLite reads the MATCH string up to the first NUL
    found: dict[int, tuple[float, str]] = {}
    words = fts.match_expression(fts.word_tokens(text), "AND")
    if words:
        for rowid, score in _run(conn, "fts_words", words, limit * 4, status):
            found[rowid] = (score, "words")
    grams = fts.match_expression(fts.trigram_tokens(text), "AND")
    # Chunks too short for the trigram index are still required: checked on the text below.
    short = [c for c in text.split() if len(c) < fts.TRIGRAM_MIN]
    if grams:
        for rowid, score in _run(conn, "fts_trigram", grams, limit * 4, status):
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
    hits = [h for h in hits if h.matched_by == "words" or _holds(h.memory, short)]
    hits.sort(key=lambda h: (h.matched_by != "words", h.score))
    return hits[:limit]
