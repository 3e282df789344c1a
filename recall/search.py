"""Full-text search for people: both FTS5 indexes, every token required, best matches first;
a star after a word asks for the words starting with it (:func:`recall.index.fts.read_stars`).

Memories this user's disuse archived (:mod:`recall.lifecycle.disuse`) are found, and marked.
Recall hides them because nobody asked for them and they kept being ignored; a person who
types words into a search is asking, and a memory that matches them is the one they want
back, so hiding it would make it look lost (and ``tether restore`` is one command away once
they see the mark).
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass

from recall.index import fts, rows
from recall.lifecycle.disuse import archived_by_disuse
from recall.model import Memory

UNSPACED_SCRIPT = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\U00020000-\U0002ffff]"
)
"""Thai, Lao, Myanmar, Khmer, kana and CJK ideographs: scripts written without spaces between
words, where a two-character word sits inside a longer token that neither index can match."""


def _symbols_alone(chunk: str) -> bool:
    """Whether ``chunk`` holds no word but a symbol beyond ASCII (an emoji, a dingbat, a
    currency sign): neither index can find it, so it is looked for as a substring. Punctuation
    and ASCII symbols alone (a quote, ``=``, a backquote) are no search: in notes about code
    they would match most memories."""
    return not fts.word_tokens(chunk) and any(
        not ch.isascii() and unicodedata.category(ch).startswith("S") for ch in chunk
    )


@dataclass(frozen=True)
class SearchHit:
    """A memory found by text, with the bm25 score (lower is better) and the index that found it."""

    memory: Memory
    score: float
    matched_by: str
    disused: bool = False
    """Archived by this user's disuse: hidden from their recall, though the file says active."""


def _status_clause(status: str, disused: Collection[str]) -> tuple[str, list[object]]:
    """The condition on ``memories`` for ``status``; empty for every status. ``archived``
    takes in the memories this user's disuse archived, as ``tether list`` does."""
    if status == "all":
        return "", []
    if status == "archived" and disused:
        marks = ",".join("?" * len(disused))
        return f"(status = ? OR id IN ({marks}))", [status, *disused]
    return "status = ?", [status]


def _run(
    conn: sqlite3.Connection,
    table: str,
    expression: str,
    limit: int,
    clause: str,
    args: list[object],
) -> list[tuple[int, float]]:
    # Filter by status inside the FTS query, so inactive matches cannot crowd out the limit.
    # The full-text match drives, each match's row looked up by its rowid (CROSS JOIN keeps
    # that order): asked as "rowid IN (a subquery)", FTS5 ran the whole match again for every
    # memory, a second and more for a word most of 3,000 memories hold.
    join, where = "", f"{table} MATCH ?"
    params: list[object] = [expression]
    if clause:
        join = f" CROSS JOIN memories ON memories.rowid = {table}.rowid"
        where += f" AND {clause}"
        params.extend(args)
    query = (
        f"SELECT {table}.rowid, bm25({table}, 2.0, 1.0) AS score FROM {table}{join} "
        f"WHERE {where} ORDER BY score LIMIT ?"
    )
    return [(r[0], r[1]) for r in conn.execute(query, (*params, limit))]


def _scan(
    conn: sqlite3.Connection, chunks: list[str], limit: int, clause: str, args: list[object]
) -> list[int]:
    """The rows whose summary or details hold every one of ``chunks`` as a substring, newest
    first: a scan of every row, so only for chunks no index can find (see UNSPACED_SCRIPT)."""
    where: list[str] = []
    params: list[object] = []
    for chunk in chunks:
        pattern = "%" + re.sub(r"([\\%_])", r"\\\1", chunk) + "%"
        where.append("(summary LIKE ? ESCAPE '\\' OR details LIKE ? ESCAPE '\\')")
        params.extend([pattern, pattern])
    if clause:
        where.append(clause)
        params.extend(args)
    query = f"SELECT rowid FROM memories WHERE {' AND '.join(where)} ORDER BY created DESC LIMIT ?"
    return [row[0] for row in conn.execute(query, (*params, limit))]


def _holds(memory: Memory, chunks: list[str]) -> bool:
    """Whether every chunk occurs in the memory's text (case-insensitively)."""
    text = f"{memory.summary}\n{memory.details}".casefold()
    return all(chunk.casefold() in text for chunk in chunks)


LIMIT_CAP = 1 << 31
"""The most hits a search is asked for, whatever ``--limit`` says: far beyond any store, and
(times the four candidates taken per hit) within an SQLite integer."""


def search(
    conn: sqlite3.Connection, text: str, *, limit: int = 20, status: str = "active"
) -> list[SearchHit]:
    """Find memories whose summary or details hold every word (or substring) of ``text``.

    ``status`` filters on the file's status, so ``active`` (the default) finds the memories
    this user's disuse archived too, marked; ``archived`` finds them as well, as they are
    archived for this user.
    """
    text = text.replace("\x00", " ")  # SQLite reads the MATCH string up to the first NUL
    # accents typed as combining marks read as the composed ones memories hold
    text = unicodedata.normalize("NFC", text)
    limit = min(limit, LIMIT_CAP)
    disused = archived_by_disuse(conn)
    clause, args = _status_clause(status, list(disused))
    found: dict[int, tuple[float, str]] = {}
    starred = fts.read_stars(text)
    text = starred.substrings
    words = fts.words_expression(fts.word_tokens(starred.words), starred.prefixes)
    if words:
        for rowid, score in _run(conn, "fts_words", words, limit * 4, clause, args):
            found[rowid] = (score, "words")
    grams = fts.match_expression(fts.trigram_tokens(text), "AND")
    # Chunks too short for the trigram index are still required: checked on the text below.
    short = [c for c in text.split() if len(c) < fts.TRIGRAM_MIN]
    if grams:
        for rowid, score in _run(conn, "fts_trigram", grams, limit * 4, clause, args):
            if rowid not in found:
                found[rowid] = (score, "substring")
    else:
        # "日本" inside "日本語": too short for the trigrams, and not a whole word token; "🚀":
        # too short, and no word token at all (the word tokenizer reads a symbol as a space)
        unspaced = [c for c in short if UNSPACED_SCRIPT.search(c) or _symbols_alone(c)]
        for rowid in _scan(conn, unspaced, limit * 4, clause, args) if unspaced else []:
            found.setdefault(rowid, (0.0, "substring"))
    if not found:
        return []
    marks = ",".join("?" * len(found))
    query = f"SELECT * FROM memories WHERE rowid IN ({marks})"
    params: list[object] = list(found)
    if clause:
        query += f" AND {clause}"
        params.extend(args)
    hits = []
    for row in conn.execute(query, params):
        memory = rows.memory_from_row(row)
        score, matched_by = found[row["rowid"]]
        hits.append(SearchHit(memory, score, matched_by, memory.id in disused))
    hits = [h for h in hits if h.matched_by == "words" or _holds(h.memory, short)]
    hits.sort(key=lambda h: (h.matched_by != "words", h.score))
    return hits[:limit]
