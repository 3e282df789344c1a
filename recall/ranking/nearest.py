"""The semantic channel's search: the memories whose vectors lie nearest the prompt's."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall import privacy
from recall.locations import GLOBAL
from recall.ranking import hashbag, lean_semantic, vector_cache
from recall.ranking import weights as W
from recall.store import MemoryStore

if TYPE_CHECKING:
    from recall.ranking.embedding import Embedder


@dataclass
class Prepared:
    """The query as every channel takes it."""

    words: list[str]
    grams: list[str]
    sparse: list[tuple[int, float]] | None
    """The prompt's hash-bag vector as (dimension, value) pairs (the default embedder)."""
    vector: Any
    """The prompt's vector from a configured provider embedder (a numpy array)."""
    text: str


class Nearest:
    """Finds the memories nearest a prompt, keeping each store's vectors while its index is
    unchanged, so a long-lived process maps the cache once, not once per recall."""

    def __init__(self, embedder: Callable[[], Embedder]) -> None:
        """Search with the vectors of ``embedder()`` (asked only when the numpy path runs)."""
        self.embedder = embedder
        self._kept: dict[int, tuple[tuple[sqlite3.Connection, str], Any, Any, int]] = {}
        # who heard of each store's memories left out: told once per listener, so an engine
        # kept between commands tells each command (its own notice), as a fresh one would
        self._told: dict[int, Callable[[str], None]] = {}

    def forget(self) -> None:
        """Drop the kept vectors (read through connections a recovery closed)."""
        self._kept.clear()

    def similar(
        self,
        store: MemoryStore,
        prepared: Prepared,
        cache_dir: Path | None,
        *,
        short_lived: bool,
        notice: Callable[[str], None] | None,
    ) -> list[tuple[int, float]]:
        """The memories of ``store`` nearest the prompt, as (rowid, cosine), best first.

        ``cache_dir`` is the project's vector cache; ``short_lived`` scores in plain Python
        from it when it can (no numpy import); ``notice`` hears of memories left out.
        """
        conn = store.conn
        cache = cache_dir if store.scope == "project" else store.location.base / "cache"
        k, floor = W.SEMANTIC_CANDIDATES, W.SEMANTIC_MIN_COSINE
        vector = prepared.vector
        if prepared.sparse is not None:
            weights = hashbag.query_weights(prepared.sparse)
            if short_lived and hashbag.is_sparse(len(weights), hashbag.DEFAULT_DIM):
                model = hashbag.model_name(hashbag.DEFAULT_DIM)
                lean = lean_semantic.similar(
                    conn, cache, model, hashbag.DEFAULT_DIM, weights, k, floor
                )
                if lean is not None:
                    return lean
            vector = _dense(prepared.sparse, hashbag.DEFAULT_DIM)
        from recall.ranking.embedding import cosine_top

        rowids, matrix = self._vectors_of(store, cache, notice)
        return [
            (int(rowids[row]), cosine)
            for row, cosine in cosine_top(vector, matrix, k, min_score=floor)
        ]

    def _vectors_of(
        self, store: MemoryStore, cache: Path | None, notice: Callable[[str], None] | None
    ) -> tuple[Any, Any]:
        """(rowids, matrix) of every memory of ``store``, kept while the index is unchanged."""
        from recall.ranking import vectors

        conn, embedder = store.conn, self.embedder()
        stamp = vector_cache.cache_stamp(conn, embedder.name, embedder.dim)
        kept = self._kept.get(id(store))
        # the connection too: a store that recovered its index reads through a new one
        if kept is not None and kept[0] == (conn, stamp):
            _, rowids, matrix, left_out = kept
        else:
            dir_mode, file_mode = _cache_modes(store)
            rowids, matrix, left_out = vectors.for_recall(
                conn, embedder, cache, dir_mode=dir_mode, file_mode=file_mode
            )
            self._kept[id(store)] = ((conn, stamp), rowids, matrix, left_out)
            self._told.pop(id(store), None)
        if left_out and notice is not None and self._told.get(id(store)) is not notice:
            self._told[id(store)] = notice
            notice(
                f"{left_out} memories of the {store.scope} store have no vector from "
                f"{embedder.name} yet and are left out of the semantic channel; "
                "`tether reindex` computes them"
            )
        return rowids, matrix


def _dense(sparse: list[tuple[int, float]], dim: int) -> Any:
    """A sparse hash-bag vector as the float32 numpy vector the numpy path takes."""
    import numpy as np

    vector = np.zeros(dim, dtype=np.float32)
    for column, value in sparse:
        vector[column] = value
    return vector


def _cache_modes(store: MemoryStore) -> tuple[int, int]:
    """Folder and file modes of a store's vector cache: owner-only in the private global store,
    like everything else there (recall.privacy), the usual ones in a project."""
    if store.scope == GLOBAL:
        return privacy.DIR_MODE, privacy.FILE_MODE
    return 0o755, 0o644
