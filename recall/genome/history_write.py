"""Writing a history batch into the index, exactly as a rebuild from scratch would.

The only work left after reading is for renames onto a name that already had a history:
the two identities become one, whose counts are recomputed from the commit lists of every
file (rare, so a pass over all rows is fine).
"""

from __future__ import annotations

import sqlite3

from recall.genome.commit_times import clear_times
from recall.genome.filerows import SQL_CHUNK
from recall.genome.history_index import HistoryBatch
from recall.genome.packing import pack, pack_near, unpack


def _recount(conn: sqlite3.Connection, batch: HistoryBatch, survivors: set[int]) -> set[int]:
    """Recompute the commit counts and neighbours of merged identities from every file's
    commit list; return every identity whose count with a survivor may have changed."""
    rows = batch.rows
    cap = batch.max_commit_files
    eligible = {seq for seq, _, _, nfiles in batch.commits if nfiles <= cap}
    first = batch.commits[0][0] if batch.commits else 0
    eligible.update(
        seq
        for (seq, nfiles) in conn.execute(
            "SELECT seq, nfiles FROM genome_commits WHERE seq < ?", (first,)
        )
        if nfiles <= cap
    )
    wanted: dict[int, set[int]] = {}
    affected: set[int] = set()
    for ident in survivors:
        row = rows.get(ident)
        row.seqs = sorted(set(row.seqs))
        affected |= set(row.near)
        row.near = {}
        wanted[ident] = eligible.intersection(row.seqs)
        row.commits = len(wanted[ident])
    cur = conn.cursor()
    cur.row_factory = None
    stored = ((i, unpack(b)) for i, b in cur.execute("SELECT id, seqs FROM genome_files"))
    in_memory = [(i, row.seqs) for i, row in rows.rows.items()]
    seen: set[int] = set()
    for ident, seqs in (*in_memory, *stored):
        if ident in seen:
            continue
        seen.add(ident)
        for survivor, mine in wanted.items():
            if ident != survivor and mine:
                shared = len(mine.intersection(seqs))
                if shared:
                    rows.rows[survivor].near[ident] = shared
                    affected.add(ident)
    return affected


def _merge_identities(conn: sqlite3.Connection, batch: HistoryBatch) -> int:
    """Fold every identity a rename merged into its survivor; return the neighbour entries
    the dropped identities had stored."""
    lineage = batch.lineage
    rows = batch.rows
    find = lineage.find
    survivors = {find(loser) for loser in lineage.merged}
    rows.preload(lineage.merged)
    affected: set[int] = set()
    removed = 0
    for loser in lineage.merged:
        row = rows.rows.pop(loser, None)
        if row is None:
            continue
        removed += row.stored_pairs
        rows.get(find(loser)).seqs.extend(row.seqs)
        affected |= set(row.near)
        if loser < rows.first_new_id:
            conn.execute("DELETE FROM genome_files WHERE id = ?", (loser,))
    affected |= _recount(conn, batch, survivors)
    rows.preload(affected)
    for other in affected - survivors - lineage.merged.keys():
        near = rows.get(other).near
        for survivor in survivors:
            count = rows.rows[survivor].near.get(other)
            if count:
                near[survivor] = count
            else:
                near.pop(survivor, None)
        for loser in lineage.merged:
            near.pop(loser, None)
    return removed


def write_history(conn: sqlite3.Connection, batch: HistoryBatch) -> int:
    """Fold a batch into the stored history; the caller holds the write transaction.

    Returns the change in the number of distinct co-change pairs.
    """
    lineage = batch.lineage
    rows = batch.rows
    rows.conn = conn
    conn.executemany(
        "INSERT INTO genome_commits(seq, sha, ts, nfiles) VALUES(?, ?, ?, ?)", batch.commits
    )
    conn.executemany("INSERT INTO genome_renames(seq, old, new) VALUES(?, ?, ?)", lineage.renames)
    removed = _merge_identities(conn, batch) if lineage.merged else 0
    for ident, name in lineage.renamed.items():
        rows.get(lineage.find(ident)).path = name
    stored = sorted(i for i in rows.rows if i < rows.first_new_id)
    for start in range(0, len(stored), SQL_CHUNK):
        chunk = stored[start : start + SQL_CHUNK]
        conn.execute(f"DELETE FROM genome_files WHERE id IN ({','.join('?' * len(chunk))})", chunk)
    conn.executemany(
        "INSERT INTO genome_files(id, path, commits, seqs, near) VALUES(?, ?, ?, ?, ?)",
        (
            (ident, row.path, row.commits, pack(row.seqs), pack_near(row.near))
            for ident, row in rows.rows.items()
        ),
    )
    entries = sum(len(row.near) - row.stored_pairs for row in rows.rows.values())
    return (entries - removed) // 2


def clear_history(conn: sqlite3.Connection) -> None:
    """Forget all stored history (before a rebuild)."""
    for table in ("genome_files", "genome_commits", "genome_renames"):
        conn.execute(f"DELETE FROM {table}")
    clear_times(conn)
