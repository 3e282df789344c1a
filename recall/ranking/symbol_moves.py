"""Memories whose anchored symbol now lives in a touched file: they count as naming it.

A memory anchored to ``ip/iproute.c::iproute_modify`` is about that function wherever it is;
once the function moved to ``ip/route.c`` (the file renamed, split, or the code moved), touching
``ip/route.c`` surfaces the memory as a direct file hit, with the receipt "via symbol
iproute_modify, moved from ip/iproute.c". A store with no symbol anchors costs one look-up.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import replace

from recall.anchors.states import RELOCATED, resolve
from recall.anchors.symbols import anchors_from_column, normalize_name
from recall.genome.symbols.lookup import leaves_in
from recall.ranking import weights as W
from recall.ranking.channels import Channel, Evidence

RenamedTo = Callable[[str], "str | None"]

_CANDIDATES = (
    "SELECT ma.memory_rowid, ma.path, ma.name, m.anchors FROM memory_anchors ma "
    "JOIN memories m ON m.rowid = ma.memory_rowid "
    "WHERE ma.leaf IN (SELECT value FROM json_each(?)) AND ma.path != ? AND +m.status = 'active'"
)


def _any_anchor(conn: sqlite3.Connection) -> bool:
    try:
        return conn.execute("SELECT 1 FROM memory_anchors LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:  # an index from before symbol anchors
        return False


def moved_into(
    conn: sqlite3.Connection,
    genome_conn: sqlite3.Connection | None,
    touched: dict[str, float],
    exists: Callable[[str], bool],
    renamed_to: RenamedTo | None = None,
) -> dict[int, tuple[float, str]]:
    """For each memory with a symbol anchor relocated into a touched file: its file magnitude
    there and the receipt phrase (``iproute_modify, moved from ip/iproute.c``)."""
    if genome_conn is None or not touched or not _any_anchor(conn):
        return {}
    found: dict[int, tuple[float, str]] = {}
    for path, weight in touched.items():
        if not exists(path):
            continue
        leaves = leaves_in(genome_conn, path)
        if not leaves:
            continue
        hits: dict[int, str] = {}
        for rowid, old_path, name, column in conn.execute(_CANDIDATES, (json.dumps(leaves), path)):
            if rowid in hits:
                continue
            anchor = next(
                (
                    a
                    for a in anchors_from_column(column)
                    if a.path == old_path and normalize_name(a.name) == name
                ),
                None,
            )
            if anchor is None:
                continue
            state = resolve(genome_conn, anchor, renamed_to)
            if state.state == RELOCATED and state.found is not None and state.found.path == path:
                hits[rowid] = f"{anchor.name}, moved from {old_path}"
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
