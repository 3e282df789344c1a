"""BM25F over the word index: each row's summary and details normalised by their own lengths,
from the index's own statistics or from counts a long-lived process keeps."""

from __future__ import annotations

import json
import math
import sqlite3
from collections import defaultdict
from collections.abc import Collection
from typing import TYPE_CHECKING

from recall.index import fts, fts_stats
from recall.ranking import weights as W
from recall.ranking.facts import JSON_VALUES

if TYPE_CHECKING:
    from recall.ranking.postings import Postings
    from recall.ranking.text_channel import Vocabulary


def _column_means(
    conn: sqlite3.Connection, totals: tuple[int, int, int] | None = None
) -> tuple[int, float, float] | None:
    """Rows of ``fts_words`` and the mean tokens of its summary and details columns (from
    FTS5's own totals, :func:`fts_stats.column_totals`, unless already read as ``totals``);
    None when they cannot be read."""
    totals = totals or fts_stats.column_totals(conn)
    if totals is None:
        return None
    rows, summary, details = totals
    return rows, summary / rows, details / rows


Column = tuple[int, dict[str, int]]
"""One column of one memory: its length in tokens, and how often each asked term occurs."""


def _occurrences(
    conn: sqlite3.Connection,
    vocabulary: Vocabulary,
    terms: dict[str, int],
    rowids: Collection[int],
) -> dict[int, tuple[Column, Column]]:
    """The summary and details columns of each of ``rowids`` as the word index holds them.

    ``terms`` are the asked terms with how many memories hold each. The lengths come from the
    index's per-row sizes; the occurrences from its instance listing when the terms occur less
    often than the rows hold tokens (long texts, rare words), else by tokenizing the rows'
    texts (short texts, common words). Both count the same tokens; the cheaper is read. Each
    column's terms come in name order, so their sums do not depend on the path.
    """
    if not rowids:
        return {}
    bound = json.dumps(list(rowids))
    found: dict[int, tuple[Column, Column]] = {}
    for rowid, summary, details in fts_stats.row_sizes(conn, rowids):
        found[rowid] = ((summary, {}), (details, {}))
    if not terms:
        return found
    held = sum(summary + details for (summary, _), (details, _) in found.values())
    if sum(terms.values()) <= held:
        instances = vocabulary.instance_table()
        for rowid, column, term, times in conn.execute(
            f"SELECT doc, col, term, count(*) FROM {instances} "
            f"WHERE term IN {JSON_VALUES} AND doc IN {JSON_VALUES} GROUP BY doc, col, term "
            "ORDER BY doc, col, term",
            (json.dumps(list(terms)), bound),
        ):
            if rowid in found:
                found[rowid][0 if column == "summary" else 1][1][term] = times
        return found
    fetched = conn.execute(
        # the same texts as the word index holds, read from the memories table: an FTS5
        # table would run a statement of its own for each row
        f"SELECT rowid, summary, details FROM memories WHERE rowid IN {JSON_VALUES}",
        (bound,),
    ).fetchall()
    columns = fts.indexed_words_many(
        [text or "" for _, summary, details in fetched for text in (summary, details)]
    )
    for index, (rowid, _summary, _details) in enumerate(fetched):
        found[rowid] = tuple(  # type: ignore[assignment]
            (len(words), {term: words.count(term) for term in sorted(terms.keys() & set(words))})
            for words in (columns[2 * index], columns[2 * index + 1])
        )
    return found


def field_bm25(
    conn: sqlite3.Connection,
    vocabulary: Vocabulary,
    tokens: list[str],
    rowids: Collection[int],
    near: Collection[int] = (),
    postings: Postings | None = None,
) -> dict[int, float] | None:
    """bm25 strength of each row with the summary and the details each normalised by its own
    length (BM25F), where FTS5's bm25 divides by the length of the whole row.

    Under FTS5's one length, a memory that explains itself at length has its summary's match
    discounted against a bare one-liner's, though the summary is just as short; the notes
    worth finding are often the ones that explain the most. Terms are matched as the word
    query matches them (an inflected or long word by its stem as a prefix). The idf is FTS5's
    formula over the memories holding the word; for a stem, the memories holding each of its
    forms are summed (at most the whole store), so a memory holding two forms counts twice
    and the stem's idf is a little low. None when the column statistics cannot be read (the
    caller keeps FTS5's scores).

    ``near`` are the memories the file channels found. A query word that most of them hold
    (the touched file's component name, say) cannot tell them apart, so its weight shrinks by
    the share of them it matches (:func:`W.local_term_weight`); the store-wide idf alone
    rates it as rare. The weight is the query's, so every match of the word is scored with it.

    With ``postings`` (kept counts of the word index) the occurrences and lengths are read
    from them, without a statement, and summed over arrays in the same order as row by row
    (each word's forms by name, the summary's before the details'; the words in query order).
    """
    means = _column_means(conn, postings.totals() if postings is not None else None)
    if means is None:
        return None
    total, mean_summary, mean_details = means
    idf: dict[str, float] = {}
    owners: dict[str, list[str]] = defaultdict(list)  # indexed form -> query words it counts for
    holding: dict[str, int] = {}  # indexed form -> memories holding it
    for token in tokens:
        found = vocabulary.forms(token)
        having = min(total, sum(doc for _, doc in found))  # forms sharing a memory: counted twice
        if having > 0:
            idf[token] = max(W.BM25_IDF_FLOOR, math.log((total - having + 0.5) / (having + 0.5)))
            for term, docs in found:
                owners[term].append(token)
                holding[term] = docs
    strengths: dict[int, float] = {}
    if not idf:
        return strengths
    if postings is not None:
        return _field_bm25_kept(postings, vocabulary, idf, rowids, near, means)
    counts: dict[int, dict[str, float]] = {}
    for rowid, columns in _occurrences(conn, vocabulary, holding, rowids).items():
        tf: dict[str, float] = {}
        for (tokens_in, present), weight, mean in (
            (columns[0], W.BM25_SUMMARY_WEIGHT, mean_summary),
            (columns[1], 1.0, mean_details),
        ):
            if not present:
                continue
            length = tokens_in / mean if mean > 0 else 1.0
            share = weight / (1.0 - W.BM25_B + W.BM25_B * length)
            for form, times in present.items():
                hits = times * share
                for token in owners[form]:
                    tf[token] = tf.get(token, 0.0) + hits
        counts[rowid] = tf
    if near:
        near_rows = set(near)
        for token in idf:
            holding = sum(1 for rowid in near_rows if token in counts.get(rowid, ()))
            idf[token] *= W.local_term_weight(holding, len(near_rows))
    for rowid, tf in counts.items():
        # summed in query order (as over arrays with kept counts): the same bits either way
        strengths[rowid] = sum(
            idf[token] * tf[token] * (W.BM25_K1 + 1.0) / (W.BM25_K1 + tf[token])
            for token in idf
            if token in tf
        )
    return strengths


def _field_bm25_kept(
    postings: Postings,
    vocabulary: Vocabulary,
    idf: dict[str, float],
    rowids: Collection[int],
    near: Collection[int],
    means: tuple[int, float, float],
) -> dict[int, float] | None:
    """:func:`field_bm25` from kept counts, over arrays: the same formula, column by column
    and term by term as the row-by-row loop adds them. None when a row's lengths cannot be
    kept (the caller keeps FTS5's scores)."""
    import numpy as np

    from recall.ranking.postings import is_member, sorted_unique  # loaded with the postings

    _, mean_summary, mean_details = means
    rows = sorted_unique(np.fromiter(rowids, dtype=np.int64))
    lengths = postings.lengths(rows)
    if lengths is None:
        return None
    held = lengths[0] >= 0  # rows the index holds; the others get no strength
    rows, columns = rows[held], (lengths[0][held], lengths[1][held])
    shares = []
    for tokens_in, weight, mean in (
        (columns[0], W.BM25_SUMMARY_WEIGHT, mean_summary),
        (columns[1], 1.0, mean_details),
    ):
        length = tokens_in / mean if mean > 0 else np.ones(len(rows))
        shares.append(weight / (1.0 - W.BM25_B + W.BM25_B * length))
    tf: dict[str, np.ndarray] = {}
    for token in idf:
        forms = sorted(term for term, _ in vocabulary.forms(token))
        kept = postings.of(forms)
        found = np.zeros(len(rows), dtype=np.float64)
        for column in (1, 2):  # the summary's occurrences, then the details'
            for form in forms:
                form_rows, counts = kept[form][0], kept[form][column]
                if not len(form_rows) or not len(rows):
                    continue
                at = np.minimum(np.searchsorted(form_rows, rows), len(form_rows) - 1)
                times = np.where(form_rows[at] == rows, counts[at], 0)
                found = found + times * shares[column - 1]
        tf[token] = found
    if near:
        near_rows = np.fromiter(set(near), dtype=np.int64)
        is_near = is_member(rows, near_rows)
        for token in idf:
            holding = int(np.count_nonzero(tf[token][is_near] > 0))
            idf[token] *= W.local_term_weight(holding, len(near_rows))
    strength = np.zeros(len(rows), dtype=np.float64)
    for token, found in tf.items():
        strength = strength + idf[token] * found * (W.BM25_K1 + 1.0) / (W.BM25_K1 + found)
    return dict(zip(rows.tolist(), strength.tolist(), strict=True))
