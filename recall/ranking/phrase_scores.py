"""The trigram index's bm25 kept per phrase for a long-lived process: each phrase's share of
the score of every row it matches, read once per index state.

FTS5's bm25 of an OR of phrases is the sum, phrase by phrase in query order, of a share that
depends on that phrase alone (its idf over the whole index, its occurrences in the row, the
row's length). A query of that one phrase returns exactly that share (negated), so the shares
of phrases asked before are summed here in the same order to the same scores, bit for bit,
without asking FTS5 again: on a real history an identifier's phrase costs FTS5 milliseconds
(a doclist per trigram, once to match and once more for its idf), and the same identifiers
come back prompt after prompt. Every match of a phrase is kept, so the matches among the
touched files' memories need no second statement either.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Collection
from typing import Final

from recall.index import fts
from recall.ranking import weights as W


class PhraseScores:
    """bm25 shares of the trigram phrases asked so far, for one index state (the engine
    keeps one per store and index generation, as it does the word postings)."""

    LIMIT: Final = 250_000
    """Matches kept before the memory is dropped and refilled (about 100 bytes each in a dict:
    25 MB at most, as the word postings); a speed setting, not a judgement (any value scores
    the same)."""

    def __init__(self, conn: sqlite3.Connection, table: str = "fts_trigram") -> None:
        """Ask the FTS5 ``table`` of ``conn``."""
        self.conn = conn
        self.table = table
        self._kept: dict[str, dict[int, float]] = {}
        self._held = 0
        self.statements = 0
        """Statements run so far (tests check that kept phrases are not asked again)."""

    def shares(self, phrase: str) -> dict[int, float]:
        """Each row matching the quoted ``phrase`` with its share of bm25 (positive)."""
        found = self._kept.get(phrase)
        if found is None:
            if self._held > self.LIMIT:
                self._kept.clear()
                self._held = 0
            self.statements += 1
            found = {
                rowid: -rank
                for rowid, rank in self.conn.execute(
                    f"SELECT rowid, rank FROM {self.table} WHERE {self.table} MATCH ? "
                    "AND rank MATCH ?",
                    (phrase, f"bm25({W.BM25_SUMMARY_WEIGHT}, 1.0)"),
                )
            }
            self._kept[phrase] = found
            self._held += len(found) + 1
        return found

    def best(
        self,
        tokens: list[str],
        limit: int,
        candidates: Collection[int],
        inactive: Collection[int],
    ) -> dict[int, float]:
        """The best ``limit`` active matches of the OR of ``tokens`` and every match among
        ``candidates``, with FTS5's bm25 of that OR (negative, best lowest), as
        ``text_channel._best_from_fts5`` asks FTS5 for them."""
        summed: dict[int, float] = {}
        for token in tokens:  # FTS5 adds the phrases' shares in query order
            if not token:
                continue
            for rowid, share in self.shares(fts.quote_token(token)).items():
                summed[rowid] = summed.get(rowid, 0.0) + share
        scores = {rowid: -1.0 * total for rowid, total in summed.items()}
        # equal scores by rowid, as FTS5 returns them
        keep = dict(
            heapq.nsmallest(
                limit,
                (item for item in scores.items() if item[0] not in inactive),
                key=lambda item: (item[1], item[0]),
            )
        )
        for rowid in candidates:
            if rowid not in keep and rowid in scores:
                keep[rowid] = scores[rowid]
        return keep
