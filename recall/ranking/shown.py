"""What only the returned hits need: their rows read whole, and the spot-check mark on those
whose files changed a lot since."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from recall.index import rows
from recall.lifecycle.references import (
    CONFIRMED_KEY,
    FORMER_FILES_KEY,
    baseline,
    drift,
    with_lifecycle_keys,
)
from recall.model import Memory
from recall.ranking.diversify import given_up, place
from recall.ranking.drift_counts import DriftCounts
from recall.ranking.facts import JSON_VALUES
from recall.ranking.fuse import DRIFT_NOTE, receipt
from recall.ranking.hits import Candidate, Hit, RepoSignals, is_strong
from recall.store import MemoryStore

Lifecycle = dict[str, tuple[Path, tuple[int, int] | None, dict[str, Any]]]
"""Lifecycle keys read from memory files, by memory id, with the file's path and the (mtime,
size) they were read at."""


_UNREAD: Any = object()
"""The (modification time, size) of a file whose path is known but which was not read yet."""


class IndexMoved(Exception):
    """An index was replaced (or a ranked row removed) while a recall read it."""


def spread_chosen(chosen: list[Candidate], limit: int) -> tuple[list[Candidate], list[float]]:
    """The first ``limit`` of ``chosen`` (best first) once spread over their files
    (:func:`recall.ranking.diversify.place`), with the score each gave up."""
    placed = place([c.item.score for c in chosen], [c.files for c in chosen])[:limit]
    return [chosen[k] for k, _ in placed], [loss for _, loss in placed]


def hydrate(
    chosen: list[Candidate],
    pinned: dict[int, sqlite3.Connection],
    losses: Sequence[float] = (),
) -> list[Hit]:
    """The hits for the candidates that are returned: only their rows are read and decoded
    (one statement per store), each with the score it gave up in the spread over files
    (``losses``, in order; :func:`recall.ranking.diversify.given_up`). Raises
    :class:`IndexMoved` when a store's index is no longer the one its candidates came from
    (``pinned``)."""
    memories: dict[tuple[int, int], Memory] = {}
    for store in {id(c.store): c.store for c in chosen}.values():
        wanted = [c.rowid for c in chosen if c.store is store]
        conn = store.conn
        if pinned.get(id(store)) is not conn:
            raise IndexMoved
        for row in conn.execute(
            f"SELECT * FROM memories WHERE rowid IN {JSON_VALUES}", (json.dumps(wanted),)
        ):
            memories[(id(store), row["rowid"])] = rows.memory_from_row(row)
    hits: list[Hit] = []
    for c in chosen:
        memory = memories.get((id(c.store), c.rowid))
        if memory is None:  # gone from the file since it was ranked
            raise IndexMoved
        hits.append(
            Hit(
                memory,
                c.store.scope,
                c.item.score,
                dict(c.item.signals),
                receipt(c.item, pinned=memory.pinned, fan_in=c.fan_in),
                is_strong(c.item, memory),
            )
        )
    return [given_up(hit, loss) for hit, loss in zip(hits, losses, strict=True)] if losses else hits


def mark_drift(
    hits: list[Hit],
    stores: Sequence[MemoryStore],
    repo: RepoSignals,
    threshold: int,
    lifecycle_of: Callable[[MemoryStore], Lifecycle],
    kept: DriftCounts | None = None,
) -> None:
    """Add the spot-check mark to the shown hits whose files changed a lot since.

    Asked only of the hits that are returned, and answered from the genome's own data in one
    go when it can (:meth:`Genome.commits_touching_many`); a memory nobody sees needs no mark.
    ``kept`` holds the counts asked before for the same genome state (an engine keeps one),
    so a hit shown again costs no statement. ``lifecycle_of`` gives the lifecycle keys a
    store's engine keeps for its index state (asked once per store and call).
    """
    by_scope = {store.scope: store for store in stores}
    kept = kept if kept is not None else DriftCounts()
    counted = kept.counts(repo, _pairs(hit.memory for hit in hits))
    looks = [(hit, drift(hit.memory, repo, threshold, counted)) for hit in hits]
    # a confirmation lives in the file only: read it for the few that look drifted
    doubtful = [hit for hit, found in looks if found is not None and hit.scope in by_scope]
    lifecycles = {scope: lifecycle_of(by_scope[scope]) for scope in {h.scope for h in doubtful}}
    for scope, lifecycle in lifecycles.items():
        _learn_paths(
            by_scope[scope], [h.memory.id for h in doubtful if h.scope == scope], lifecycle
        )
    for hit, found in looks:
        if found is not None and hit.scope in by_scope:
            store = by_scope[hit.scope]
            full = _with_lifecycle_keys(store, hit.memory, lifecycles[hit.scope])
            if full is not hit.memory:
                counted = kept.counts(repo, _pairs([full]))
            found = drift(full, repo, threshold, counted)
        if found is not None:
            hit.drift = found.commits
            hit.receipt = f"{hit.receipt}, {DRIFT_NOTE}"


def _pairs(memories: Iterable[Memory]) -> list[tuple[str, str]]:
    """The (file, since) pairs :func:`drift` counts for ``memories``."""
    return [
        (path, since) for memory in memories for path in memory.files if (since := baseline(memory))
    ]


def _learn_paths(store: MemoryStore, ids: list[str], kept: Lifecycle) -> None:
    """Note in ``kept`` the file of each of ``ids`` not noted yet, in one statement (a file
    not read yet is noted with no keys, so :func:`_with_lifecycle_keys` reads it)."""
    wanted = [memory_id for memory_id in dict.fromkeys(ids) if memory_id not in kept]
    if not wanted:
        return
    for memory_id, name in store.conn.execute(
        f"SELECT id, name FROM memories WHERE id IN {JSON_VALUES}", (json.dumps(wanted),)
    ):
        kept[memory_id] = (store.folder.path / name, _UNREAD, {})


def _with_lifecycle_keys(store: MemoryStore, memory: Memory, kept: Lifecycle) -> Memory:
    """:func:`with_lifecycle_keys`, its file read again only when it changed (by its
    modification time and size) or the index did (``kept`` is per index state, and so is
    the file's name)."""
    found = kept.get(memory.id)
    path = found[0] if found is not None else store.path_of(memory.id)
    try:
        info = os.stat(path)
        seen: tuple[int, int] | None = (info.st_mtime_ns, info.st_size)
    except OSError:
        seen = None
    if found is None or found[1] != seen or seen is None or found[1] is _UNREAD:
        found = kept[memory.id] = (path, seen, _lifecycle_extra(store, memory, path))
    extra = found[2]
    return memory.with_changes(extra=extra) if extra != memory.extra else memory


def _lifecycle_extra(store: MemoryStore, memory: Memory, path: Path) -> dict[str, Any]:
    """The ``extra`` of :func:`with_lifecycle_keys`, without parsing a file (at ``path``)
    that names neither key (most memories were never confirmed nor repointed)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return memory.extra
    if CONFIRMED_KEY not in text and FORMER_FILES_KEY not in text:
        return memory.extra
    return with_lifecycle_keys(store, memory).extra
