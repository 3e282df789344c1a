"""The recall engine: runs every channel over each store, fuses, adjusts and merges the results.

The stages live beside it: the channels (:mod:`~recall.ranking.file_channels`,
:mod:`~recall.ranking.text_channel`, :mod:`~recall.ranking.nearest`), the fusion
(:mod:`~recall.ranking.fuse`), the adjustments (:mod:`~recall.ranking.adjust`) and what only
the returned hits need (:mod:`~recall.ranking.shown`).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall.errors import EmbedderFailed, StoreUnavailable
from recall.index import fts, rows
from recall.index.db import tuples
from recall.ranking import channels as ch
from recall.ranking import collector, crowded, file_hits, hashbag, introducers, query_words
from recall.ranking import file_channels as fc
from recall.ranking import text_channel as tc
from recall.ranking import weights as W
from recall.ranking.adjust import Adjuster, adjust_reach, kth_best
from recall.ranking.drift_counts import DriftCounts
from recall.ranking.hits import (
    Candidate,
    Hit,
    RecallResult,
    RepoSignals,
    WorkingTree,
    add_time,
    merge_scopes,
)
from recall.ranking.nearest import Nearest, Prepared
from recall.ranking.query import RecallQuery
from recall.ranking.sanitize import sanitize_prompt
from recall.ranking.shown import IndexMoved, Lifecycle, hydrate, mark_drift, spread_chosen
from recall.ranking.store_facts import StoreFacts
from recall.store import MemoryStore, is_corruption

if TYPE_CHECKING:
    from recall.ranking.embedding import Embedder

__all__ = ["Hit", "RecallResult", "Recaller", "RepoSignals", "WorkingTree"]


class Recaller:
    """Ranks the memories of one or more stores for a query."""

    def __init__(
        self,
        stores: Sequence[MemoryStore],
        repo: RepoSignals | None = None,
        *,
        embedder: Embedder | None = None,
        cache_dir: Path | None = None,
        drift_commits: int = W.DRIFT_COMMITS,
        short_lived: bool = False,
        semantic: bool = True,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        """Rank the memories of ``stores``.

        ``embedder`` replaces the default hash-bag embedder. ``short_lived`` is for a process that
        answers one query and exits (a hook, ``tether inject``): the semantic channel then scores in
        plain Python from the vector cache when it can, which spares it numpy's import; the ranking
        is the same either way. ``semantic`` False leaves that channel out (a configured provider
        that cannot be loaded). A provider that fails while embedding is reported once through
        ``notice`` and its channel left out of that recall; the others rank as usual.
        """
        self.stores = list(stores)
        self.drift_commits = drift_commits
        self.repo: RepoSignals = repo or WorkingTree(stores[0].repo_root if stores else None)
        self._embedder = embedder
        self._hash_codes = hashbag.FeatureCodes()
        self.cache_dir = cache_dir
        self.short_lived = short_lived
        self.semantic = semantic
        self.notice = notice
        self._provider_failures: set[str] = set()
        self._facts: dict[int, StoreFacts] = {}
        self._nearest = Nearest(lambda: self.embedder)
        self._drift = DriftCounts()

    @property
    def embedder(self) -> Embedder:
        """The embedder of memory vectors: the one given, else the hash-bag (imports numpy)."""
        if self._embedder is None:
            from recall.ranking.embedding import HashEmbedder

            self._embedder = HashEmbedder()
        return self._embedder

    def _prepare(self, query: RecallQuery, timings: dict[str, float]) -> Prepared:
        start = time.perf_counter()
        text = sanitize_prompt(query.prompt).query if query.prompt else ""
        # Undecodable bytes from argv or JSON arrive as lone surrogates; SQLite cannot take them.
        text = text.encode("utf-8", "ignore").decode("utf-8")
        words = query_words.prompt_words(text)
        grams = [g for g in fts.trigram_tokens(text) if W.is_identifier_like(g)]
        sparse: list[tuple[int, float]] | None = None
        vector: Any = None
        if text.strip() and self.semantic:
            if self._embedder is None:
                sparse = hashbag.sparse_vector(text, hashbag.DEFAULT_DIM, self._hash_codes)
            else:
                try:
                    vector = self._embedder.embed(text)
                except EmbedderFailed as error:
                    self._provider_failed(error)
        timings["prepare"] = (time.perf_counter() - start) * 1000
        return Prepared(words, grams, sparse, vector, text)

    def recall(self, query: RecallQuery) -> RecallResult:
        """Rank memories for ``query``; the first hits are the ones worth injecting.

        A store whose index turns out to be damaged is rebuilt from its files, then asked again; one
        whose folder check ran beside the ranking and found a file changed is synced, then asked
        again. The cycle collector waits until the recall ends (:mod:`recall.ranking.collector`).
        """
        with collector.paused():
            result = self._recall_or_recover(query)
            if self._settle_stores():  # a file changed under the index: ranked again on it
                self._after_recovery()
                result = self._recall_or_recover(query)
            return result

    def _settle_stores(self) -> bool:
        """Each store's deferred check of its folder answered (see
        :meth:`recall.store.opening.IndexOpening.settle`); whether any index changed."""
        return any([store.settle() for store in self.stores])

    def _recall_or_recover(self, query: RecallQuery) -> RecallResult:
        """:meth:`recall`: once, and once more after rebuilding a damaged index."""
        for attempt in range(2):
            try:
                return self._recall_one_state(query)
            except sqlite3.DatabaseError as error:
                damaged = [s for s in self.stores if s.exists] if is_corruption(error) else []
                if attempt or not damaged:
                    raise
                for store in damaged:
                    store.recover(error)
                self._after_recovery()
        raise AssertionError("unreachable")

    def _recall_one_state(self, query: RecallQuery) -> RecallResult:
        """:meth:`_recall` over one state of each index: a recall that saw an index replaced
        under it (a reindex in another process swaps the file, and rowids are assigned anew)
        mixed rows of two files, so it is done again on the new one."""
        for _attempt in range(_REPLACED_ATTEMPTS):
            pinned = self._connections()
            try:
                result = self._recall(query, pinned)
            except IndexMoved:
                result = None
            if result is not None and _same(self._connections(), pinned):
                return result
            self._after_recovery()  # what was read through the old connections is stale
        raise StoreUnavailable("the index kept being replaced during a recall; retry")

    def forget_rankings(self) -> None:
        """Rank afresh from the next recall on (see :meth:`StoreFacts.forget_rankings`)."""
        for facts in self._facts.values():
            facts.forget_rankings()

    def _connections(self) -> dict[int, sqlite3.Connection]:
        """The connection each existing store reads through now, by store (a replaced index
        gives its store a new one; holding the old keeps its identity from being reused)."""
        return {id(s): s.conn for s in self.stores if s.exists}

    def _after_recovery(self) -> None:
        """Forget what was read through the connections a recovery closed."""
        self._facts.clear()
        self._nearest.forget()
        self._follow_recovered_index()

    def _follow_recovered_index(self) -> None:
        """Point the genome at the project's connection when the store has a new one (its
        index was rebuilt after damage, by this recall or by any other write)."""
        project = next((s for s in self.stores if s.scope == "project"), None)
        rebind = getattr(self.repo, "rebind", None)
        if project is None or not project.exists or not callable(rebind):
            return
        if getattr(self.repo, "conn", None) is not project.conn:
            rebind(project.conn)

    def _recall(self, query: RecallQuery, pinned: dict[int, sqlite3.Connection]) -> RecallResult:
        start = time.perf_counter()
        self._follow_recovered_index()
        timings: dict[str, float] = {}
        prepared = self._prepare(query, timings)
        touched = fc.touch_weights(query.touches)
        tick = time.perf_counter()
        neighbours = fc.reached_neighbours(touched, self.repo)
        timings["cochange"] = (time.perf_counter() - tick) * 1000
        adjuster = Adjuster(self.repo, touched, neighbours, introducers.named_words(prepared.text))
        found: list[Candidate] = []
        cuts: dict[tuple[int, str], crowded.Cut] = {}
        ranked = max(query.limit, W.SPREAD_POOL)  # a short list is the head of a long one
        for store in self.stores:
            if store.scope not in query.scopes:
                continue
            given = self._rank_store(store, adjuster, neighbours, prepared, timings, ranked, cuts)
            # a store whose folder is gone (a branch switch) gives nothing, though its index
            # answers until its owner closes it
            found.extend(c for c in given if id(c.store) in pinned)
        tick = time.perf_counter()
        merged = merge_scopes(found)
        merged.sort(key=lambda c: (-c.item.score, c.id))
        chosen = merged[:ranked]
        add_time(timings, "fusion", tick)
        tick = time.perf_counter()
        chosen, losses = spread_chosen(chosen, query.limit)
        top = hydrate(chosen, pinned, losses)
        if cuts:
            crowded.note_cuts(top, chosen, cuts)
        timings["hydrate"] = (time.perf_counter() - tick) * 1000
        tick = time.perf_counter()
        mark_drift(top, self.stores, self.repo, self.drift_commits, self._lifecycle_of, self._drift)
        timings["drift"] = (time.perf_counter() - tick) * 1000
        elapsed = (time.perf_counter() - start) * 1000
        return RecallResult(top, elapsed, timings, prepared.text)

    def _lifecycle_of(self, store: MemoryStore) -> Lifecycle:
        """The lifecycle keys kept for the current index state of ``store``."""
        return self._store_facts(store).lifecycle

    def _timed(
        self, timings: dict[str, float], name: str, run: Callable[[], ch.Channel]
    ) -> ch.Channel:
        tick = time.perf_counter()
        result = run()
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - tick) * 1000
        return result

    def _rank_store(
        self,
        store: MemoryStore,
        adjuster: Adjuster,
        neighbours: list[fc.NeighbourHit],
        prepared: Prepared,
        timings: dict[str, float],
        limit: int,
        cuts: dict[tuple[int, str], crowded.Cut],
    ) -> list[Candidate]:
        conn = store.conn
        facts = self._store_facts(store)
        if not facts.active:
            return []  # nothing to rank: an empty or not yet created store costs no query
        found: dict[str, ch.Channel] = {}
        tick = time.perf_counter()
        aliases = fc.repo_aliases(adjuster.touched, self.repo)
        add_time(timings, "file", tick)
        found["file"] = self._timed(
            timings,
            "file",
            lambda: file_hits.kept_file_channel(conn, facts, adjuster.touched, aliases),
        )
        found["file"] = self._timed(
            timings,
            "file",
            lambda: file_hits.with_moved_symbols(
                conn, self.repo, facts, adjuster.touched, aliases, found["file"]
            ),
        )
        # Without a prompt only the file channels rank; co-change's memories may then never
        # reach the shown ones, which the file channel's alone tell (see below).
        only_files = not (prepared.words or prepared.grams or self._semantic_asked(prepared))
        defer = only_files and bool(neighbours)
        if not defer:
            found["cochange"] = self._timed(
                timings,
                "cochange",
                lambda: fc.cochange(conn, neighbours, found["file"], facts.memo),
            )
        else:
            found["cochange"] = {}
        crowding = crowded.cut_crowded(conn, facts, found, fc.neighbour_names(neighbours))
        cuts.update({(id(store), name): cut for name, cut in crowding.cuts.items()})
        if defer:
            on_file = {"file": found["file"]} if found["file"] else {}
            first = adjuster.finish(store, facts.memo, on_file, timings, limit)
            # The k-th best of the file channel's memories can only rise with more memories,
            # and co-change adds memories no other channel holds, each at most this bound
            # and what the adjustments add: past the bar, they cannot be among the shown.
            reach = fc.cochange_bound(neighbours) + adjust_reach()
            if reach < kth_best(first, limit) - 1e-9:
                return first
            whole = crowding.whole["file"]  # a memory cut from it is still no co-change hit
            found["cochange"] = self._timed(
                timings, "cochange", lambda: fc.cochange(conn, neighbours, whole, facts.memo)
            )
            late = crowded.cut_crowded(
                conn, facts, found, fc.neighbour_names(neighbours), ("cochange",)
            )
            cuts.update({(id(store), name): cut for name, cut in late.cuts.items()})
        near = set(found["file"]) | set(found["cochange"])
        inactive = facts.inactive
        if prepared.words:
            words = tc.text_terms(facts.vocabulary, prepared.words, facts.active)
            if facts.postings is None and not self.short_lived:
                # kept across recalls: a process answering one query would only pay to fill it
                from recall.ranking.postings import Postings

                facts.postings = Postings(conn)
            found["words"] = self._timed(
                timings,
                "text",
                lambda: tc.text(
                    conn,
                    "fts_words",
                    words,
                    W.TEXT_CANDIDATES,
                    near,
                    inactive,
                    facts.vocabulary,
                    facts.postings,
                ),
            )
        if prepared.grams:
            if facts.phrases is None and not self.short_lived:
                from recall.ranking.phrase_scores import PhraseScores

                facts.phrases = PhraseScores(conn)
            found["trigram"] = self._timed(
                timings,
                "text",
                lambda: tc.text(
                    conn,
                    "fts_trigram",
                    prepared.grams,
                    W.TEXT_CANDIDATES,
                    near,
                    inactive,
                    phrases=facts.phrases,
                ),
            )
        if self._semantic_asked(prepared) and store.exists:
            found["semantic"] = self._timed(
                timings, "semantic", lambda: ch.semantic(self._similar_or_none(store, prepared))
            )
        crowding.restore(found)
        channels = {name: channel for name, channel in found.items() if channel}
        return adjuster.finish(store, facts.memo, channels, timings, limit)

    @staticmethod
    def _semantic_asked(prepared: Prepared) -> bool:
        """Whether the query asks the semantic channel (a prompt embedded)."""
        return bool(prepared.sparse) or prepared.vector is not None

    def _provider_failed(self, error: EmbedderFailed) -> None:
        """Say once per failure what the provider did; recall goes on without it."""
        message = f"{error}; this recall ranks without the semantic channel"
        if message not in self._provider_failures:
            self._provider_failures.add(message)
            if self.notice is not None:
                self.notice(message)

    def _similar_or_none(self, store: MemoryStore, prepared: Prepared) -> list[tuple[int, float]]:
        """The memories nearest the prompt (:meth:`Nearest.similar`), or nothing when the
        provider embedder fails on the memories."""
        try:
            return self._nearest.similar(
                store, prepared, self.cache_dir, short_lived=self.short_lived, notice=self.notice
            )
        except EmbedderFailed as error:
            self._provider_failed(error)
            return []

    def _store_facts(self, store: MemoryStore) -> StoreFacts:
        """How many memories are active, which rowids are not, and the word counts, cached
        per index state."""
        # the index's identity and generation, and the connection the vocabulary reads through
        # (a recovered index is rebuilt on a new one)
        stamp = rows.index_stamp(store.conn)
        cached = self._facts.get(id(store))
        if cached is not None and cached.stamp == stamp and cached.vocabulary.conn is store.conn:
            return cached
        conn = store.conn
        inactive = frozenset(
            r[0]
            for r in tuples(conn).execute("SELECT rowid FROM memories WHERE status != 'active'")
        )
        active = conn.execute("SELECT count(*) FROM memories").fetchone()[0] - len(inactive)
        facts = StoreFacts(stamp, active, inactive, tc.Vocabulary(conn))
        self._facts[id(store)] = facts
        return facts


_REPLACED_ATTEMPTS = 3
"""Recalls in a row that may see an index replaced under them before giving up: one reindex
costs one more; three back to back within one recall would be a loop, not a user."""


def _same(now: dict[int, sqlite3.Connection], before: dict[int, sqlite3.Connection]) -> bool:
    """Whether every store reads through the connection it read through before."""
    return now.keys() == before.keys() and all(now[k] is before[k] for k in now)
