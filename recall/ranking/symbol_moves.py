"""Memories whose anchored symbol now lives in a touched file: they count as naming it.

A memory anchored to ``ip/iproute.c::iproute_modify`` is about that function wherever it is;
once the function moved to ``ip/route.c`` (the file renamed, split, or the code moved), touching
``ip/route.c`` surfaces the memory as a direct file hit, with the receipt "via symbol
iproute_modify, moved from ip/iproute.c". A store with no symbol anchors costs one look-up per
index state; the engine keeps what each file's moves are per index and genome state.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from recall.anchors.symbols import SymbolAnchor, anchors_from_column, normalize_name
from recall.genome.symbols.lookup import found_in_place, leaves_of
from recall.ranking import weights as W
from recall.ranking.channels import Channel, Evidence

RenamedTo = Callable[[str], "str | None"]

_CANDIDATES = (
    "SELECT ma.memory_rowid, ma.path, ma.name, ma.leaf, m.anchors FROM memory_anchors ma "
    "JOIN memories m ON m.rowid = ma.memory_rowid "
    "WHERE ma.leaf IN (SELECT value FROM json_each(?)) AND +m.status = 'active'"
)

Moves = dict[str, dict[int, str]]
"""For each touched file: the memories with a symbol anchor relocated into it, each with the
receipt phrase (``iproute_modify, moved from ip/iproute.c``)."""


def moves_into(
    conn: sqlite3.Connection,
    genome_conn: sqlite3.Connection,
    paths: Sequence[str],
    renamed_to: RenamedTo | None = None,
    root: Path | None = None,
) -> Moves:
    """:data:`Moves` for ``paths`` (touched files that exist), asked in a few statements
    whatever their number: what each file defines, the memories anchored to those names
    elsewhere, and which of those anchors are still where they were recorded. Only an anchor
    no longer there is resolved in full. A memory with several anchors moved into one file
    names the first of them. ``root`` is the repository's folder, whose history says whether
    a same-named definition is new in a file (see :mod:`recall.anchors.prior`)."""
    found: Moves = {path: {} for path in paths}
    leaves = leaves_of(genome_conn, paths)
    wanted = sorted({leaf for names in leaves.values() for leaf in names})
    if not wanted:
        return found
    parsed: dict[int, tuple[SymbolAnchor, ...]] = {}
    candidates: list[tuple[str, int, int, SymbolAnchor]] = []
    for rowid, old_path, name, leaf, column in conn.execute(_CANDIDATES, (json.dumps(wanted),)):
        anchors = parsed.get(rowid)
        if anchors is None:
            anchors = parsed[rowid] = anchors_from_column(column)
        place = next(
            (
                (n, a)
                for n, a in enumerate(anchors)
                if a.path == old_path and normalize_name(a.name) == name
            ),
            None,
        )
        if place is None:
            continue
        for path in paths:
            if path != old_path and leaf in leaves.get(path, ()):
                candidates.append((path, rowid, *place))
    in_place = found_in_place(genome_conn, {(a.path, a.name) for *_, a in candidates})
    states: dict[tuple[str, str, str | None], str | None] = {}
    history: Any = None
    for path, rowid, _, anchor in sorted(candidates, key=lambda c: (c[1], c[2])):
        if rowid in found[path] or (anchor.path, anchor.name) in in_place:
            continue  # still where it was recorded: current or changed, not moved
        key = (anchor.path, anchor.name, anchor.body)
        if key not in states:
            # here, not above: only a store with symbol anchors loads the state code (and the
            # parsers it names), never a prompt hook's recall over a store without any
            from recall.anchors.prior import had_before
            from recall.anchors.states import RELOCATED, indexed_head, resolve

            history = history or had_before(root, indexed_head(genome_conn))
            state = resolve(genome_conn, anchor, renamed_to, history)
            moved = state.state == RELOCATED and state.found is not None
            states[key] = state.found.path if moved and state.found is not None else None
        if states[key] == path:
            found[path][rowid] = f"{anchor.name}, moved from {anchor.path}"
    return found


def moved_into(touched: dict[str, float], moves: Moves) -> dict[int, tuple[float, str]]:
    """For each memory with a symbol anchor relocated into a touched file (``moves``, by
    :func:`moves_into`): its file magnitude there and the receipt phrase."""
    found: dict[int, tuple[float, str]] = {}
    for path, weight in touched.items():
        hits = moves.get(path)
        if not hits:
            continue
        magnitude = W.file_magnitude(len(hits), weight)
        for rowid, via in hits.items():
            if rowid not in found or found[rowid][0] < magnitude:
                found[rowid] = (magnitude, via)
    return found


def merge_into_file(file_channel: Channel, moved: dict[int, tuple[float, str]]) -> Channel:
    """The file channel with the moved-symbol hits added (a memory already there keeps its
    evidence), ranked again by magnitude; equal magnitudes keep the file channel's order."""
    if not moved:
        return file_channel
    entries: dict[int, Evidence] = dict(file_channel)
    for rowid, (magnitude, via) in moved.items():
        if rowid not in entries:
            entries[rowid] = Evidence(0, magnitude, "", 1.0, via=via)
    rank_before = {rowid: evidence.rank for rowid, evidence in file_channel.items()}
    ordered = sorted(
        entries.items(),
        key=lambda item: (-item[1].magnitude, rank_before.get(item[0], 1 << 30), item[0]),
    )
    # New evidence, not the old ranked again: a long-lived engine keeps the file channel it
    # was given for later recalls.
    return {
        rowid: replace(evidence, rank=rank)
        for rank, (rowid, evidence) in enumerate(ordered, start=1)
    }


MOVED_PATHS_KEPT = 256
"""Touched files whose moved-symbol hits are kept per index and genome state; a speed setting,
not a judgement (any value ranks the same)."""


@dataclass
class MovesKept:
    """What a long-lived engine knows of symbols moved into touched files, for one index state:
    each asked file's moved-symbol hits for the genome state ``genome``."""

    moves: dict[str, dict[int, str]] = field(default_factory=dict)
    genome: str | None = None


def with_moved(
    conn: sqlite3.Connection,
    repo: Any,
    kept: MovesKept,
    touched: dict[str, float],
    aliases: dict[str, Any],
    file_hits: Channel,
) -> Channel:
    """The file channel plus memories whose anchored symbol moved into a touched file (one that
    exists: a key of ``aliases``). Each file's moves are kept per index state (``kept``) and
    genome state, so asking for the same file again reads nothing. The caller asks only for a
    store where some memory has a symbol anchor."""
    genome_conn = getattr(repo, "conn", None)
    if genome_conn is None or not aliases:
        return file_hits
    genome = _genome_state(repo, genome_conn)
    if kept.genome != genome or len(kept.moves) >= MOVED_PATHS_KEPT:
        kept.moves.clear()
        kept.genome = genome
    asked = [path for path in aliases if path not in kept.moves]
    if asked:
        renamed_to = getattr(repo, "renamed_to", None)
        root = getattr(repo, "repo_root", None)
        kept.moves.update(moves_into(conn, genome_conn, asked, renamed_to, root))
    present = {path: touched[path] for path in aliases}
    return merge_into_file(file_hits, moved_into(present, kept.moves))


def _genome_state(repo: Any, conn: sqlite3.Connection) -> str:
    """What identifies the genome's contents now: its bookkeeping, rewritten by every refresh.
    A genome that keeps it between refreshes answers without a statement."""
    state = getattr(repo, "state_token", None)
    if callable(state):
        return str(state())
    from recall.genome.schema import read_state

    return repr(sorted(read_state(conn).items()))
