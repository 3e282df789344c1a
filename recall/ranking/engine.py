"""The recall engine: runs every channel over each store, fuses, adjusts and merges the results."""

from __future__ import annotations

import heapq
import json
import math
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from recall import privacy
from recall.clock import now, parse_timestamp
from recall.errors import BadInput, EmbedderFailed, StoreUnavailable
from recall.index import fts, rows
from recall.lifecycle.references import CONFIRMED_KEY, FORMER_FILES_KEY, drift, with_lifecycle_keys
from recall.locations import GLOBAL
from recall.model import Memory
from recall.ranking import channels as ch
from recall.ranking import hashbag, lean_semantic, learned, query_words, vector_cache
from recall.ranking import weights as W
from recall.ranking.facts import FactsMemo, usage_of
from recall.ranking.fuse import DRIFT_NOTE, Fused, fuse, receipt
from recall.ranking.query import RecallQuery
from recall.ranking.sanitize import sanitize_prompt
from recall.store import MemoryStore, is_corruption

if TYPE_CHECKING:
    from recall.ranking.embedding import Embedder


class RepoSignals(Protocol):
    """What the ranker asks of the repository (the genome, or a plain working tree)."""

    def exists(self, path: str) -> bool:
        """Whether the file is in the working tree now."""
        ...

    def neighbours(self, path: str, k: int) -> Sequence[Any]:
        """Files that change together with ``path``, strongest first."""
        ...

    def fan_in(self, path: str) -> int:
        """How many files import ``path``."""
        ...

    def renamed_from(self, path: str) -> list[str]:
        """Earlier names of ``path`` in history, newest first."""
        ...


class WorkingTree:
    """Repository signals without git history: existence only (no co-change, no fan-in)."""

    def __init__(self, root: Path | None) -> None:
        self.root = root

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists under the root."""
        return self.root is not None and os.path.exists(self.root / path)

    def neighbours(self, path: str, k: int) -> Sequence[Any]:
        """No history, no neighbours."""
        return []

    def fan_in(self, path: str) -> int:
        """No import scan, no fan-in."""
        return 0

    def renamed_from(self, path: str) -> list[str]:
        """No history, no renames."""
        return []


@dataclass
class Hit:
    """One recalled memory with its score, the signals that fired and the receipt."""

    memory: Memory
    scope: str
    score: float
    signals: dict[str, float]
    receipt: str
    strong: bool
    drift: int = 0
    """Commits on the memory's busiest file since it was written or confirmed, when that is
    at least the spot-check threshold; 0 otherwise."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``recall --json`` and ``--batch``."""
        return {
            "id": self.memory.id,
            "summary": self.memory.summary,
            "category": self.memory.category,
            "scope": self.scope,
            "score": round(self.score, 4),
            "receipt": self.receipt,
            "signals": {k: round(v, 4) for k, v in sorted(self.signals.items())},
            "pinned": self.memory.pinned,
            "files": list(self.memory.files),
            "strong": self.strong,
            "spot_check": self.drift or None,
        }


@dataclass
class RecallResult:
    """Ranked hits and where the time went."""

    hits: list[Hit]
    elapsed_ms: float
    timings_ms: dict[str, float] = field(default_factory=dict)
    query_text: str = ""


@dataclass
class _Prepared:
    words: list[str]
    grams: list[str]
    sparse: list[tuple[int, float]] | None
    """The prompt's hash-bag vector as (dimension, value) pairs (the default embedder)."""
    vector: Any
    """The prompt's vector from a configured provider embedder (a numpy array)."""
    text: str


@dataclass
class _StoreFacts:
    """What the engine remembers of one store between recalls, valid for one index state."""

    stamp: str
    active: int
    inactive: frozenset[int]
    vocabulary: ch.Vocabulary
    lifecycle: dict[str, tuple[tuple[int, int] | None, dict[str, Any]]] = field(
        default_factory=dict
    )
    """The lifecycle keys read from the files of memories shown (see ``_mark_drift``)."""
    postings: Any = None
    """The word index's counts kept for the text channel (a long-lived engine only)."""
    memo: FactsMemo = field(default_factory=FactsMemo)
    """Candidates' facts and each file's memories, read once for this index state."""
    file_channels: dict[tuple[Any, ...], ch.Channel] = field(default_factory=dict)
    """The file channel of each set of touched files asked (see ``_file_channel``)."""


def _dense(sparse: list[tuple[int, float]], dim: int) -> Any:
    """A sparse hash-bag vector as the float32 numpy vector the numpy path takes."""
    import numpy as np

    vector = np.zeros(dim, dtype=np.float32)
    for column, value in sparse:
        vector[column] = value
    return vector


def _days_since(stamp: str | None, moment_ts: float) -> float:
    if not stamp:
        return 0.0
    try:
        then = parse_timestamp(stamp).timestamp()
    except BadInput:
        return 0.0
    return max(0.0, (moment_ts - then) / 86400.0)


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

        ``embedder`` replaces the default hash-bag embedder. ``short_lived`` is for a process
        that answers one query and exits (a hook, ``tether inject``): the semantic channel
        then scores in plain Python from the vector cache when it can, which spares it
        numpy's import; the ranking is the same either way. ``semantic`` False leaves that
        channel out (a configured provider that cannot be loaded). A provider that fails
        while embedding is reported once through ``notice`` and its channel left out of that
        recall; the others rank as usual.
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
        self._facts: dict[int, _StoreFacts] = {}
        self._vectors: dict[int, tuple[tuple[sqlite3.Connection, str], Any, Any]] = {}

    @property
    def embedder(self) -> Embedder:
        """The embedder of memory vectors: the one given, else the hash-bag (imports numpy)."""
        if self._embedder is None:
            from recall.ranking.embedding import HashEmbedder

            self._embedder = HashEmbedder()
        return self._embedder

    def _prepare(self, query: RecallQuery, timings: dict[str, float]) -> _Prepared:
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
        return _Prepared(words, grams, sparse, vector, text)

    def recall(self, query: RecallQuery) -> RecallResult:
        """Rank memories for ``query``; the first hits are the ones worth injecting.

        A store whose index turns out to be damaged is rebuilt from its files, then asked again.
        """
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
            except _IndexMoved:
                result = None
            if result is not None and _same(self._connections(), pinned):
                return result
            self._after_recovery()  # what was read through the old connections is stale
        raise StoreUnavailable("the index kept being replaced during a recall; retry")

    def _connections(self) -> dict[int, sqlite3.Connection]:
        """The connection each existing store reads through now, by store (a replaced index
        gives its store a new one; holding the old keeps its identity from being reused)."""
        return {id(s): s.conn for s in self.stores if s.exists}

    def _after_recovery(self) -> None:
        """Forget what was read through the connections a recovery closed."""
        self._facts.clear()
        self._vectors.clear()
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
        self._fan_in_cache: dict[str, int] = {}
        self._module: set[str] | None = None
        timings: dict[str, float] = {}
        prepared = self._prepare(query, timings)
        touched = ch.touch_weights(query.touches)
        tick = time.perf_counter()
        neighbours = ch.cochange_neighbours(touched, self.repo.neighbours, self.repo.exists)
        timings["cochange"] = (time.perf_counter() - tick) * 1000
        found: list[_Candidate] = []
        for store in self.stores:
            if store.scope not in query.scopes:
                continue
            found.extend(
                self._rank_store(store, touched, neighbours, prepared, timings, query.limit)
            )
        tick = time.perf_counter()
        merged = _merge_scopes(found)
        merged.sort(key=lambda c: (-c.item.score, c.id))
        chosen = merged[: query.limit]
        _add_time(timings, "fusion", tick)
        tick = time.perf_counter()
        top = self._hydrate(chosen, pinned)
        timings["hydrate"] = (time.perf_counter() - tick) * 1000
        tick = time.perf_counter()
        self._mark_drift(top)
        timings["drift"] = (time.perf_counter() - tick) * 1000
        elapsed = (time.perf_counter() - start) * 1000
        return RecallResult(top, elapsed, timings, prepared.text)

    def _hydrate(
        self, chosen: list[_Candidate], pinned: dict[int, sqlite3.Connection]
    ) -> list[Hit]:
        """The hits for the candidates that are returned: only their rows are read and decoded
        (one statement per store). Raises :class:`_IndexMoved` when a store's index is no
        longer the one its candidates came from (``pinned``)."""
        memories: dict[tuple[int, int], Memory] = {}
        for store in {id(c.store): c.store for c in chosen}.values():
            wanted = [c.rowid for c in chosen if c.store is store]
            conn = store.conn
            if pinned.get(id(store)) is not conn:
                raise _IndexMoved
            for row in conn.execute(
                f"SELECT * FROM memories WHERE rowid IN {ch.JSON_VALUES}", (json.dumps(wanted),)
            ):
                memories[(id(store), row["rowid"])] = rows.memory_from_row(row)
        hits: list[Hit] = []
        for c in chosen:
            memory = memories.get((id(c.store), c.rowid))
            if memory is None:  # gone from the file since it was ranked
                raise _IndexMoved
            hits.append(
                Hit(
                    memory,
                    c.store.scope,
                    c.item.score,
                    dict(c.item.signals),
                    receipt(c.item, pinned=memory.pinned, fan_in=c.fan_in),
                    _is_strong(c.item, memory),
                )
            )
        return hits

    def _mark_drift(self, hits: list[Hit]) -> None:
        """Add the spot-check mark to the shown hits whose files changed a lot since.

        Asked only of the hits that are returned, and answered from the genome's own data in
        one go when it can (:meth:`Genome.commits_touching_many`); a memory nobody sees needs
        no mark.
        """
        stores = {store.scope: store for store in self.stores}
        counted = self._drift_counts(hits)
        for hit in hits:
            found = drift(hit.memory, self.repo, self.drift_commits, counted)
            if found is not None and hit.scope in stores:
                # a confirmation lives in the file only: read it for the few that look drifted
                full = self._with_lifecycle_keys(stores[hit.scope], hit.memory)
                found = drift(full, self.repo, self.drift_commits, counted)
            if found is not None:
                hit.drift = found.commits
                hit.receipt = f"{hit.receipt}, {DRIFT_NOTE}"

    def _with_lifecycle_keys(self, store: MemoryStore, memory: Memory) -> Memory:
        """:func:`with_lifecycle_keys`, its file read again only when it changed (by its
        modification time and size) or the index did."""
        kept = self._store_facts(store).lifecycle
        try:
            info = os.stat(store.path_of(memory.id))
            seen: tuple[int, int] | None = (info.st_mtime_ns, info.st_size)
        except OSError:
            seen = None
        found = kept.get(memory.id)
        if found is None or found[0] != seen or seen is None:
            found = kept[memory.id] = (seen, _lifecycle_extra(store, memory))
        extra = found[1]
        return memory.with_changes(extra=extra) if extra != memory.extra else memory

    def _drift_counts(self, hits: list[Hit]) -> dict[tuple[str, str], int] | None:
        """Commits touching each (file, creation time) of the hits, asked of the genome at
        once, or None when the repository cannot answer so (a plain working tree)."""
        many = getattr(self.repo, "commits_touching_many", None)
        if many is None:
            return None
        return many([(path, hit.memory.created) for hit in hits for path in hit.memory.files])

    def _timed(self, timings: dict[str, float], name: str, run: Callable[[], ch.Channel]):
        tick = time.perf_counter()
        result = run()
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - tick) * 1000
        return result

    def _rank_store(
        self,
        store: MemoryStore,
        touched: dict[str, float],
        neighbours: list[ch.NeighbourHit],
        prepared: _Prepared,
        timings: dict[str, float],
        limit: int,
    ) -> list[_Candidate]:
        conn = store.conn
        facts = self._store_facts(store)
        if not facts.active:
            return []  # nothing to rank: an empty or not yet created store costs no query
        found: dict[str, ch.Channel] = {}
        found["file"] = self._timed(
            timings,
            "file",
            lambda: self._file_channel(conn, facts, touched),
        )
        found["cochange"] = self._timed(
            timings, "cochange", lambda: ch.cochange(conn, neighbours, found["file"], facts.memo)
        )
        near = set(found["file"]) | set(found["cochange"])
        inactive = facts.inactive
        if prepared.words:
            words = ch.text_terms(facts.vocabulary, prepared.words, facts.active)
            if facts.postings is None and not self.short_lived:
                # kept across recalls: a process answering one query would only pay to fill it
                from recall.ranking.postings import Postings

                facts.postings = Postings(conn)
            found["words"] = self._timed(
                timings,
                "text",
                lambda: ch.text(
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
            found["trigram"] = self._timed(
                timings,
                "text",
                lambda: ch.text(
                    conn, "fts_trigram", prepared.grams, W.TEXT_CANDIDATES, near, inactive
                ),
            )
        if (prepared.sparse or prepared.vector is not None) and store.exists:
            found["semantic"] = self._timed(
                timings, "semantic", lambda: ch.semantic(self._similar_or_none(store, prepared))
            )
        tick = time.perf_counter()
        fused = fuse({k: v for k, v in found.items() if v})
        _add_time(timings, "fusion", tick)
        return self._finish(store, fused, touched, neighbours, timings, limit)

    def _file_channel(
        self, conn: sqlite3.Connection, facts: _StoreFacts, touched: dict[str, float]
    ) -> ch.Channel:
        """The file channel, kept per index state for each set of touched files and the
        names they had (an editor asks for the same open file again and again)."""
        aliases = ch.file_aliases(touched, self.repo.exists, self.repo.renamed_from)
        key = tuple((path, touched[path], names) for path, names in aliases.items())
        kept = facts.file_channels.get(key)
        if kept is None:
            if len(facts.file_channels) >= FILE_CHANNELS_KEPT:
                facts.file_channels.clear()
            kept = facts.file_channels[key] = ch.files_channel(conn, touched, aliases, facts.memo)
        return kept

    def _provider_failed(self, error: EmbedderFailed) -> None:
        """Say once per failure what the provider did; recall goes on without it."""
        message = f"{error}; this recall ranks without the semantic channel"
        if message not in self._provider_failures:
            self._provider_failures.add(message)
            if self.notice is not None:
                self.notice(message)

    def _similar_or_none(self, store: MemoryStore, prepared: _Prepared) -> list[tuple[int, float]]:
        """:meth:`_similar`, or nothing when the provider embedder fails on the memories."""
        try:
            return self._similar(store, prepared)
        except EmbedderFailed as error:
            self._provider_failed(error)
            return []

    def _similar(self, store: MemoryStore, prepared: _Prepared) -> list[tuple[int, float]]:
        """The memories of ``store`` nearest the prompt, as (rowid, cosine), best first."""
        conn = store.conn
        cache = self.cache_dir if store.scope == "project" else store.location.base / "cache"
        k, floor = W.SEMANTIC_CANDIDATES, W.SEMANTIC_MIN_COSINE
        vector = prepared.vector
        if prepared.sparse is not None:
            weights = hashbag.query_weights(prepared.sparse)
            if self.short_lived and hashbag.is_sparse(len(weights), hashbag.DEFAULT_DIM):
                model = hashbag.model_name(hashbag.DEFAULT_DIM)
                lean = lean_semantic.similar(
                    conn, cache, model, hashbag.DEFAULT_DIM, weights, k, floor
                )
                if lean is not None:
                    return lean
            vector = _dense(prepared.sparse, hashbag.DEFAULT_DIM)
        from recall.ranking.embedding import cosine_top

        rowids, matrix = self._vectors_of(store, cache)
        return [
            (int(rowids[row]), cosine)
            for row, cosine in cosine_top(vector, matrix, k, min_score=floor)
        ]

    def _vectors_of(self, store: MemoryStore, cache: Path | None) -> tuple[Any, Any]:
        """(rowids, matrix) of every memory of ``store``, kept in memory while the index is
        unchanged, so a long-lived process maps the cache once, not once per recall."""
        from recall.ranking import vectors

        conn, embedder = store.conn, self.embedder
        stamp = vector_cache.cache_stamp(conn, embedder.name, embedder.dim)
        kept = self._vectors.get(id(store))
        # the connection too: a store that recovered its index reads through a new one
        if kept is not None and kept[0] == (conn, stamp):
            return kept[1], kept[2]
        dir_mode, file_mode = _cache_modes(store)
        rowids, matrix, left_out = vectors.for_recall(
            conn, embedder, cache, dir_mode=dir_mode, file_mode=file_mode
        )
        if left_out and self.notice is not None:
            self.notice(
                f"{left_out} memories of the {store.scope} store have no vector from "
                f"{embedder.name} yet and are left out of the semantic channel; "
                "`tether reindex` computes them"
            )
        self._vectors[id(store)] = ((conn, stamp), rowids, matrix)
        return rowids, matrix

    def _store_facts(self, store: MemoryStore) -> _StoreFacts:
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
            r[0] for r in conn.execute("SELECT rowid FROM memories WHERE status != 'active'")
        )
        active = conn.execute("SELECT count(*) FROM memories").fetchone()[0] - len(inactive)
        facts = _StoreFacts(stamp, active, inactive, ch.Vocabulary(conn))
        self._facts[id(store)] = facts
        return facts

    def _fan_in(self, path: str) -> int:
        """Import fan-in of a file, asked of the repository once per recall."""
        if path not in self._fan_in_cache:
            self._fan_in_cache[path] = self.repo.fan_in(path)
        return self._fan_in_cache[path]

    def _module_of(self, touched: dict[str, float]) -> set[str]:
        """Files that change together with the touched ones: the module being worked on
        (asked of the repository once per recall)."""
        if self._module is None:
            module: set[str] = set()
            for path in touched:
                module.update(n.path for n in self.repo.neighbours(path, W.MODULE_NEIGHBOURS))
            self._module = module
        return self._module

    def _finish(
        self,
        store: MemoryStore,
        fused: dict[int, Fused],
        touched: dict[str, float],
        neighbours: list[ch.NeighbourHit],
        timings: dict[str, float],
        limit: int,
    ) -> list[_Candidate]:
        """The fused candidates that may be shown, with the adjustments that need their facts
        (files, age, usage, pin), in rowid order.

        The adjustments move a score by a bounded amount (:func:`_adjust_reach`), so the facts
        are read for the best fused candidates first; the others are read only if they could
        still reach the ``limit`` best, which a crowded file's hundreds of memories rarely
        can. Two statements a round, at most two rounds.
        """
        if not fused:
            return []
        order = sorted(fused.values(), key=lambda item: -item.score)
        first = max(limit * FACTS_ROUND_FACTOR, FACTS_FIRST_ROUND)
        found = self._adjusted(store, order[:first], touched, neighbours, timings)
        if len(order) > first:
            bar = _kth_best(found, limit)
            reach = _adjust_reach()
            rest = [item for item in order[first:] if item.score + reach >= bar - 1e-9]
            found += self._adjusted(store, rest, touched, neighbours, timings)
        found.sort(key=lambda candidate: candidate.rowid)
        return found

    def _adjusted(
        self,
        store: MemoryStore,
        items: list[Fused],
        touched: dict[str, float],
        neighbours: list[ch.NeighbourHit],
        timings: dict[str, float],
    ) -> list[_Candidate]:
        """``items`` that may be shown (active, not superseded, not archived by disuse),
        their facts read in two statements and their scores adjusted."""
        if not items:
            return []
        tick = time.perf_counter()
        conn = store.conn
        statics = self._store_facts(store).memo.statics(conn, [item.rowid for item in items])
        usage = usage_of(conn, [fact.id for fact in statics.values()])
        _add_time(timings, "candidates", tick)
        tick = time.perf_counter()
        fused = {item.rowid: item for item in items}
        moment = now().timestamp()
        module = self._module_of(touched)
        # the files through which a memory is relevant: touched, or a co-changing neighbour
        reached = touched.keys() | {hit.path for hit in neighbours}
        found: list[_Candidate] = []
        for rowid in sorted(statics):
            fact = statics[rowid]
            if fact.replaced:
                continue
            used = usage.get(fact.id)
            if used is not None and used.archived and not fact.pinned:
                continue  # archived by this user's disuse (lifecycle.disuse); pinned are exempt
            item = fused[rowid]
            # The fan-in that matters is that of the file through which the memory is relevant.
            through = fact.file_set & reached
            fan_in = max(map(self._fan_in, through)) if through else 0
            item.add("blast", W.blast_bonus(fan_in))
            if "file" in item.evidence:
                others = fact.file_set - touched.keys()
                if others:  # a memory's files are distinct: the share counts each once
                    item.add("module", W.module_bonus(len(others & module) / len(others)))
            if used is not None and used.last_acted:
                days = _days_since(used.last_acted, moment)
            else:
                days = 0.0 if fact.then is None else max(0.0, (moment - fact.then) / 86400.0)
            item.add("recency", W.recency_bonus(days, pinned=fact.pinned))
            if fact.pinned:
                item.add("pinned", W.PINNED_BONUS)
            elif used is not None:
                item.add("ignored", W.ignore_penalty(used.surfaced, used.acted))
                item.add("acted", W.acted_bonus(used.acted))
            found.append(_Candidate(store, rowid, fact.id, fact.content_hash, item, fan_in))
        _add_time(timings, "adjust", tick)
        return found


FILE_CHANNELS_KEPT = 64
"""Sets of touched files whose file channel is kept per index state; a speed setting, not a
judgement (any value ranks the same)."""

FACTS_FIRST_ROUND = 64
"""Candidates whose facts are read first (at least); a speed setting, not a judgement: any
value ranks the same."""
FACTS_ROUND_FACTOR = 4
"""...or this many times the hits asked for, when that is more."""


def _adjust_reach() -> float:
    """The most :meth:`Recaller._adjusted` can add to a fused score (the penalty only lowers
    it), with the signals' learned weights."""
    bounds = {"blast": W.BLAST_MAX, "module": W.MODULE_MAX, "recency": W.RECENCY_MAX}
    return learned.reach(bounds) + max(
        learned.reach({"pinned": W.PINNED_BONUS}), learned.reach({"acted": W.ACTED_BONUS_MAX})
    )


def _kth_best(found: list[_Candidate], k: int) -> float:
    """The ``k``-th best score among distinct contents of ``found`` (a candidate scoring
    below it cannot be among the ``k`` shown), or -inf when there are fewer."""
    best: dict[str, float] = {}
    for candidate in found:
        score = candidate.item.score
        if score > best.get(candidate.content_hash, -math.inf):
            best[candidate.content_hash] = score
    if len(best) < k:
        return -math.inf
    return heapq.nlargest(k, best.values())[-1]


_REPLACED_ATTEMPTS = 3
"""Recalls in a row that may see an index replaced under them before giving up: one reindex
costs one more; three back to back within one recall would be a loop, not a user."""


def _same(now: dict[int, sqlite3.Connection], before: dict[int, sqlite3.Connection]) -> bool:
    """Whether every store reads through the connection it read through before."""
    return now.keys() == before.keys() and all(now[k] is before[k] for k in now)


class _IndexMoved(Exception):
    """An index was replaced (or a ranked row removed) while a recall read it."""


@dataclass
class _Candidate:
    """A memory that may be shown: its store, its fused and adjusted score, its fan-in."""

    store: MemoryStore
    rowid: int
    id: str
    content_hash: str
    item: Fused
    fan_in: int


def _add_time(timings: dict[str, float], name: str, since: float) -> None:
    timings[name] = timings.get(name, 0.0) + (time.perf_counter() - since) * 1000


def _lifecycle_extra(store: MemoryStore, memory: Memory) -> dict[str, Any]:
    """The ``extra`` of :func:`with_lifecycle_keys`, without parsing a file that names
    neither key (most memories were never confirmed nor repointed)."""
    try:
        text = store.path_of(memory.id).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return memory.extra
    if CONFIRMED_KEY not in text and FORMER_FILES_KEY not in text:
        return memory.extra
    return with_lifecycle_keys(store, memory).extra


def _cache_modes(store: MemoryStore) -> tuple[int, int]:
    """Folder and file modes of a store's vector cache: owner-only in the private global store,
    like everything else there (recall.privacy), the usual ones in a project."""
    if store.scope == GLOBAL:
        return privacy.DIR_MODE, privacy.FILE_MODE
    return 0o755, 0o644


def _is_strong(item: Fused, memory: Memory) -> bool:
    """Whether a hit clears the bar for unasked injection (silence is a valid answer)."""
    evidence = item.evidence
    relevant = (
        "file" in evidence
        or "cochange" in evidence
        or ("words" in evidence and evidence["words"].magnitude >= W.TEXT_STRONG)
        or ("trigram" in evidence and evidence["trigram"].magnitude >= W.TEXT_STRONG)
        or ("semantic" in evidence and evidence["semantic"].value >= W.SEMANTIC_GATE)
    )
    return relevant and item.score >= W.INJECT_MIN_SCORE


def _merge_scopes(found: list[_Candidate]) -> list[_Candidate]:
    """Collapse the same knowledge found in several scopes; the project copy wins ties."""
    best: dict[str, _Candidate] = {}
    for candidate in found:
        key = candidate.content_hash
        current = best.get(key)
        if current is None:
            best[key] = candidate
            continue
        score, held = candidate.item.score, current.item.score
        better = score > held + 1e-9 or (
            math.isclose(score, held, abs_tol=1e-9) and candidate.store.scope == "project"
        )
        if better:
            best[key] = candidate
    return list(best.values())
