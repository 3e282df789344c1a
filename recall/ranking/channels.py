"""The ranking channels: each turns the query into a ranked list of candidate memories.

A channel returns ``{rowid: Evidence}``; the fuser turns ranks into reciprocal-rank credit and
adds the bounded magnitudes. Only active memories are ever candidates.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from recall.clock import parse_timestamp
from recall.errors import BadInput
from recall.index import fts, fts_stats
from recall.ranking import weights as W
from recall.ranking.facts import JSON_VALUES, FactsMemo, Owner
from recall.ranking.query import Touch

if TYPE_CHECKING:
    from recall.ranking.postings import Postings


@dataclass
class Evidence:
    """Why one channel put one memory forward: its rank there, a magnitude, a receipt note."""

    rank: int
    magnitude: float = 0.0
    note: str = ""
    value: float = 0.0


Channel = dict[int, Evidence]


def _ranked(
    scored: dict[int, tuple[float, float, str, float]],
    ties: dict[int, tuple[float, ...]] | None = None,
) -> Channel:
    """Turn {rowid: (sort key, magnitude, note, value)} into evidence ranked by key, best first;
    equal keys by ``ties`` (smaller first) when given, then by rowid."""
    order = ties or {}
    ordered = sorted(
        scored.items(), key=lambda item: (-item[1][0], order.get(item[0], ()), item[0])
    )
    return {
        rowid: Evidence(rank, magnitude, note, value)
        for rank, (rowid, (_, magnitude, note, value)) in enumerate(ordered, start=1)
    }


def touch_weights(touches: Sequence[Touch]) -> dict[str, float]:
    """Each touched path with the weight of the strongest way it was touched."""
    weights: dict[str, float] = {}
    for touch in touches:
        weight = W.touch_weight(touch.kind)
        weights[touch.path] = max(weight, weights.get(touch.path, 0.0))
    return weights


def file_affinity(
    conn: sqlite3.Connection,
    touched: dict[str, float],
    exists: Callable[[str], bool],
    earlier_names: Callable[[str], Sequence[str]] = lambda path: (),
    memo: FactsMemo | None = None,
) -> Channel:
    """Memories naming a touched file that exists now, weighted by how rarely the file is named.

    A file keeps its memories through renames: a memory naming an earlier name of a touched
    file (as git's history shows it) counts as naming the file. The oldest memory on a file
    shared by several (its origin, see ``W.ORIGIN_BONUS``) gets a little more. Equal file
    evidence is ranked by :func:`_tie_key` (a gotcha before a context note). ``memo`` keeps
    each file's memories between recalls of one index state.
    """
    return files_channel(conn, touched, file_aliases(touched, exists, earlier_names), memo)


def file_aliases(
    touched: dict[str, float],
    exists: Callable[[str], bool],
    earlier_names: Callable[[str], Sequence[str]] = lambda path: (),
) -> dict[str, tuple[str, ...]]:
    """Each touched file that exists now with the names it had (itself first, then its
    earlier names in history, newest first)."""
    return {path: (path, *earlier_names(path)) for path in touched if exists(path)}


def files_channel(
    conn: sqlite3.Connection,
    touched: dict[str, float],
    aliases: dict[str, tuple[str, ...]],
    memo: FactsMemo | None = None,
) -> Channel:
    """:func:`file_affinity` of touched files whose names (:func:`file_aliases`) are known."""
    names_asked = [name for names in aliases.values() for name in names]
    named = (memo or FactsMemo()).owners(conn, names_asked)
    ties: dict[int, tuple[float, ...]] = {}
    scored: dict[int, list[tuple[float, str]]] = defaultdict(list)
    origin: dict[int, float] = {}
    for path, names in aliases.items():
        owners: dict[int, tuple[str, Owner]] = {}
        for name in names:
            for owner in named.get(name, ()):
                owners.setdefault(owner.rowid, (name, owner))
        magnitude = W.file_magnitude(len(owners), touched[path])  # rarer path, larger
        for rowid, (name, owner) in owners.items():
            # the note names the earlier path when the memory was written before a rename
            scored[rowid].append((magnitude, "" if name == path else name))
            ties[rowid] = _tie_key_at(owner.kind, owner.seconds)
        moments = {rowid: owner.seconds for rowid, (_, owner) in owners.items()}
        first = min(moments.values(), default=math.inf)
        firsts = sum(1 for moment in moments.values() if moment == first)
        # all written at once, or a batch imported at once ahead of the rest: none came first
        if firsts < len(moments) and firsts <= W.ORIGIN_MAX_TIED:
            bonus = W.ORIGIN_BONUS * min(1.0, max(0.0, touched[path]))
            for rowid, moment in moments.items():
                if moment == first:
                    origin[rowid] = max(origin.get(rowid, 0.0), bonus)
    result: dict[int, tuple[float, float, str, float]] = {}
    for rowid, hits in scored.items():
        hits.sort(reverse=True)
        magnitude = W.combine_file_hits([m for m, _ in hits]) + origin.get(rowid, 0.0)
        result[rowid] = (magnitude, magnitude, hits[0][1], float(len(hits)))
    return _ranked(result, ties)


def _tie_key(kind: str, created: str) -> tuple[float, ...]:
    """Order of memories with equal file evidence: what to review before editing (a gotcha,
    a decision) first, then (``W.FILE_TIES_NEWEST_FIRST``) the newest."""
    return _tie_key_at(kind, _moment(created))


def _tie_key_at(kind: str, seconds: float) -> tuple[float, ...]:
    """:func:`_tie_key` of a creation time already in seconds (inf when unreadable)."""
    review = 0.0 if kind in W.REVIEW_KINDS else 1.0
    return (review, -seconds) if W.FILE_TIES_NEWEST_FIRST else (review,)


def _moment(stamp: str) -> float:
    """A creation time as seconds, so offsets and "Z" compare as the moments they name; an
    unreadable one sorts last (it is never a file's origin)."""
    try:
        return parse_timestamp(stamp).timestamp()
    except BadInput:
        return math.inf


@dataclass(frozen=True)
class NeighbourHit:
    """A co-changing file reached from a touched one."""

    path: str
    via: str
    support: int
    commits: int
    confidence: float


def cochange_neighbours(
    touched: dict[str, float],
    neighbours: Callable[[str, int], Sequence[object]],
    exists: Callable[[str], bool],
) -> list[NeighbourHit]:
    """The capped list of neighbours of touched files: a few per file, a few in all."""
    picked: list[NeighbourHit] = []
    seen = set(touched)
    for path in sorted(touched, key=lambda p: -touched[p]):
        taken = 0
        for neighbour in neighbours(path, W.NEIGHBOURS_PER_FILE * 4):
            name = neighbour.path  # type: ignore[attr-defined]
            if name in seen or not exists(name):
                continue
            if (
                neighbour.confidence < W.COCHANGE_MIN_CONFIDENCE  # type: ignore[attr-defined]
                or neighbour.support < W.COCHANGE_MIN_SUPPORT  # type: ignore[attr-defined]
            ):
                continue
            seen.add(name)
            picked.append(
                NeighbourHit(
                    name,
                    path,
                    neighbour.support,  # type: ignore[attr-defined]
                    neighbour.commits_of_path,  # type: ignore[attr-defined]
                    neighbour.confidence,  # type: ignore[attr-defined]
                )
            )
            taken += 1
            if taken >= W.NEIGHBOURS_PER_FILE or len(picked) >= W.NEIGHBOURS_TOTAL:
                break
        if len(picked) >= W.NEIGHBOURS_TOTAL:
            break
    return picked


def cochange(
    conn: sqlite3.Connection,
    hits: list[NeighbourHit],
    direct: Channel,
    memo: FactsMemo | None = None,
) -> Channel:
    """Memories on co-changing files enter at a fixed, weaker rank than direct hits."""
    owners = (memo or FactsMemo()).owners(conn, [h.path for h in hits])
    result: Channel = {}
    for order, hit in enumerate(hits):
        for rowid in (owner.rowid for owner in owners.get(hit.path, ())):
            if rowid in direct or rowid in result:
                continue
            # The receipt names the memory's file and how often it changed with the touched one.
            result[rowid] = Evidence(
                W.COCHANGE_RRF_RANK + order,
                W.cochange_magnitude(hit.confidence, hit.support),
                f"{hit.path} ({hit.support}/{hit.commits})",
                hit.confidence,
            )
    return result


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
    splits or folds, unreadable totals).
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
    kept = None
    if table == "fts_words" and postings is not None and vocabulary is not None:
        kept = _best_from_postings(postings, vocabulary, matching, limit, candidates, inactive)
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
    return _ranked(scored)


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

    if not all(token.isascii() and fts.indexed_words(token) == [token] for token in tokens):
        return None
    phrases = [[term for term, _ in vocabulary.forms(token)] for token in tokens]
    scored = postings.fts5_bm25(phrases, (W.BM25_SUMMARY_WEIGHT, 1.0))
    if scored is None:
        return None
    rows, scores = scored
    order = np.lexsort((rows, scores))  # best (lowest) first, equal scores by rowid
    if inactive:
        order = order[~np.isin(rows[order], np.fromiter(inactive, dtype=np.int64))]
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


def semantic(similar: Sequence[tuple[int, float]]) -> Channel:
    """The memories nearest the prompt as ``(rowid, cosine)``, ranked; below the gate they get
    rank credit only."""
    scored = {
        rowid: (cosine, W.semantic_magnitude(cosine), "", cosine) for rowid, cosine in similar
    }
    return _ranked(scored)


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

    _, mean_summary, mean_details = means
    rows = np.unique(np.fromiter(rowids, dtype=np.int64))
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
        is_near = np.isin(rows, near_rows)
        for token in idf:
            holding = int(np.count_nonzero(tf[token][is_near] > 0))
            idf[token] *= W.local_term_weight(holding, len(near_rows))
    strength = np.zeros(len(rows), dtype=np.float64)
    for token, found in tf.items():
        strength = strength + idf[token] * found * (W.BM25_K1 + 1.0) / (W.BM25_K1 + found)
    return dict(zip(rows.tolist(), strength.tolist(), strict=True))
