"""The text channels: bm25 over the word index and the trigram index, with the query words
worth matching chosen first."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from typing import TYPE_CHECKING, Final

from recall.index import fts
from recall.ranking import weights as W
from recall.ranking.channels import JSON_VALUES, Channel, ranked
from recall.ranking.field_bm25 import field_bm25

if TYPE_CHECKING:
    from recall.ranking.phrase_scores import PhraseScores
    from recall.ranking.postings import Postings


class Vocabulary:
    """The index terms each query word matches, with how many memories hold each term.

    Asked of FTS5's vocabulary table once per word and remembered: the engine keeps one per
    store and index state, so a long-lived process (the language server, a batch) looks each
    word up once, and the text channel's two users of the counts share one lookup.
    """

    LIMIT: Final = 4096
    """Words remembered before the memory is dropped and refilled (a server runs for days)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        """Look terms up in the ``fts_words_vocab`` table of ``conn``."""
        self.conn = conn
        self._forms: dict[str, list[tuple[str, int]]] = {}
        self._instances = False

    def forms(self, token: str) -> list[tuple[str, int]]:
        """(term, memories holding it) for each indexed term ``token`` matches: the word
        itself, or every term its stem is a prefix of (as the word query matches them)."""
        found = self._forms.get(token)
        if found is None:
            if len(self._forms) >= self.LIMIT:
                self._forms.clear()
            found = self._forms[token] = [
                form for term in fts.indexed_words(token) for form in self._lookup(term)
            ]
        return found

    def _lookup(self, term: str) -> list[tuple[str, int]]:
        stem = fts.fold(term)
        if stem is None:
            rows = self.conn.execute(
                "SELECT term, doc FROM fts_words_vocab WHERE term = ?", (term,)
            )
        else:
            rows = self.conn.execute(
                "SELECT term, doc FROM fts_words_vocab WHERE term >= ? AND term < ?",
                (stem, stem + "\U0010ffff"),
            )
        return [(found, int(doc)) for found, doc in rows]

    def instance_table(self) -> str:
        """The name of a listing of every term occurrence of the word index (an FTS5
        ``instance`` vocabulary table in this connection's temporary schema, made once; the
        index file itself is not changed)."""
        if not self._instances:
            self.conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_words_instance "
                "USING fts5vocab(main, fts_words, 'instance')"
            )
            self._instances = True
        return "temp.fts_words_instance"

    def documents_with(self, token: str) -> int:
        """How many memories hold ``token`` (its stem's variants summed, for inflected words)."""
        return sum(doc for _, doc in self.forms(token))


def text_terms(vocabulary: Vocabulary, tokens: list[str], total: int) -> list[str]:
    """The query words worth matching: common ones dropped, the rarest kept within a budget.

    Words in so large a share of memories that bm25 gives them almost no weight only cost
    time; past ``TEXT_MATCH_BUDGET`` matches, the most common remaining words are left out too.
    Words no memory holds are left out (they match nothing), so the rarest word that matches
    is always kept. Function words (:func:`W.is_function_word`) only weigh a match another
    word made: kept beside such a word, they are never the one kept first, and alone they
    are no query at all.
    """
    counts = {token: vocabulary.documents_with(token) for token in tokens}
    kept: set[str] = set()
    spent = 0
    content = False
    for token in sorted(tokens, key=lambda t: counts[t]):
        if counts[token] == 0 or W.is_common_term(counts[token], total):
            continue
        if content and spent + counts[token] > W.TEXT_MATCH_BUDGET:
            break
        kept.add(token)
        spent += counts[token]
        content = content or not W.is_function_word(token)
    if not content:
        return []
    return [token for token in tokens if token in kept]


def text(
    conn: sqlite3.Connection,
    table: str,
    tokens: list[str],
    limit: int,
    candidates: Collection[int] = (),
    inactive: Collection[int] = (),
    vocabulary: Vocabulary | None = None,
    postings: Postings | None = None,
    phrases: PhraseScores | None = None,
) -> Channel:
    """bm25 over one FTS5 table with the tokens OR-ed; bm25 strength kept as a magnitude.

    The best ``limit`` matches overall are taken, and every match among ``candidates`` (the
    memories the file channels found) is scored too, so text can order a crowded file's
    memories even when none of them is among the best matches of the whole store. Both are
    asked of SQLite through the lazy ``rank`` column: FTS5 then computes bm25 only for the
    rows a query keeps, and no row crosses into Python just to be thrown away. The word
    table's matches are then scored again with each column normalised by its own length
    (:func:`field_bm25`).

    With ``postings`` (a long-lived process's counts of the word index, kept per index
    state), the word table's matches are scored from those counts with FTS5's formula
    instead, the same scores and the same choice (ties by rowid, as FTS5 returns them) at a
    fraction of the cost; FTS5 is asked when the counts cannot serve (a word the index
    splits or folds, unreadable totals). With ``phrases`` (the trigram table's bm25 shares
    kept per phrase, :mod:`~recall.ranking.phrase_scores`), the trigram table's matches are
    summed from those, the same scores and the same choice.
    """
    matching = tokens
    if table == "fts_words":
        # function words score a match (field_bm25 below) but never make one
        matching = [t for t in tokens if not W.is_function_word(t)]
        expression = fts.prefix_expression(matching)
    else:
        expression = fts.match_expression(tokens, "OR")
    if expression is None:
        return {}
    if table == "fts_words" and vocabulary is None:
        vocabulary = Vocabulary(conn)
    if vocabulary is not None and vocabulary.conn is not conn:
        from recall.ranking.shown import IndexMoved  # rare: an index swapped mid-recall

        raise IndexMoved  # counts kept from a connection the swap replaced: rank again
    kept = None
    if table == "fts_words" and postings is not None and vocabulary is not None:
        kept = _best_from_postings(postings, vocabulary, matching, limit, candidates, inactive)
    if kept is None and table == "fts_trigram" and phrases is not None:
        kept = phrases.best(tokens, limit, candidates, inactive)
    if kept is None:
        keep = _best_from_fts5(conn, table, expression, limit, candidates, inactive)
    else:
        keep = kept
    if not keep:
        return {}
    if table == "fts_words" and vocabulary is not None:
        rescored = field_bm25(
            conn, vocabulary, tokens, keep, candidates, postings if kept is not None else None
        )
        if rescored is not None:
            # A row FTS5 matched that the rescoring cannot place (a form it tokenizes
            # differently) keeps FTS5's own score: a match is never dropped.
            keep = {
                rowid: -rescored[rowid] if rescored.get(rowid, 0.0) > 0 else score
                for rowid, score in keep.items()
            }
    share = W.TRIGRAM_SHARE if table == "fts_trigram" else 1.0
    scored = {
        rowid: (-score, share * W.text_magnitude(score), "", -score)
        for rowid, score in keep.items()
    }
    return ranked(scored)


def _best_from_postings(
    postings: Postings,
    vocabulary: Vocabulary,
    tokens: list[str],
    limit: int,
    candidates: Collection[int],
    inactive: Collection[int],
) -> dict[int, float] | None:
    """The best ``limit`` active matches of the word query and every match among
    ``candidates``, with FTS5's bm25 computed from the kept counts; None when they cannot
    serve (a word whose indexed form is not the word itself, unreadable totals)."""
    import numpy as np

    from recall.ranking.postings import is_member  # loaded with the postings

    if not all(token.isascii() and fts.indexed_words(token) == [token] for token in tokens):
        return None
    phrases = [[term for term, _ in vocabulary.forms(token)] for token in tokens]
    scored = postings.fts5_bm25(phrases, (W.BM25_SUMMARY_WEIGHT, 1.0))
    if scored is None:
        return None
    rows, scores = scored
    order = np.lexsort((rows, scores))  # best (lowest) first, equal scores by rowid
    if inactive:
        order = order[~is_member(rows[order], np.fromiter(inactive, dtype=np.int64))]
    keep = {int(rows[i]): float(scores[i]) for i in order[:limit]}
    asked = np.fromiter((r for r in candidates if r not in keep), dtype=np.int64)
    if len(asked) and len(rows):
        at = np.minimum(np.searchsorted(rows, asked), len(rows) - 1)
        held = rows[at] == asked
        keep.update(zip(asked[held].tolist(), scores[at[held]].tolist(), strict=True))
    return keep


def _best_from_fts5(
    conn: sqlite3.Connection,
    table: str,
    expression: str,
    limit: int,
    candidates: Collection[int],
    inactive: Collection[int],
) -> dict[int, float]:
    """The best ``limit`` active matches of ``expression`` and every match among
    ``candidates``, with FTS5's bm25, asked of FTS5."""
    ranking = f"bm25({W.BM25_SUMMARY_WEIGHT}, 1.0)"
    matches = f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ? AND rank MATCH ?"
    # Inactive rows may sit among the best; asking for that many more keeps ``limit`` active.
    wanted = limit + len(inactive)
    keep = {
        rowid: score
        for rowid, score in conn.execute(
            f"{matches} ORDER BY rank LIMIT ?", (expression, ranking, wanted)
        )
        if rowid not in inactive
    }
    if len(keep) > limit:
        keep = dict(sorted(keep.items(), key=lambda item: (item[1], item[0]))[:limit])
    extra = [rowid for rowid in candidates if rowid not in keep]
    if extra:
        # "+rowid": filter the matches after the scan; as an FTS5 constraint each rowid
        # would be looked up on its own, which is far slower for a crowded file.
        keep.update(
            conn.execute(
                f"SELECT rowid, rank FROM ({matches}) WHERE +rowid IN {JSON_VALUES}",
                (expression, ranking, json.dumps(extra)),
            )
        )
    return keep
