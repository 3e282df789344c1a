"""Every indexed commit's time in a few packed rows, so drift counts can read them in one go.

A drift count needs the time of each commit that touched a hit's files: on a hub file's
memories that is 10,000-15,000 commits, which read as rows of ``genome_commits`` cost
10-15 ms. ``genome_times`` holds the same times packed (little-endian 64-bit, in commit
number order), one row per stretch of commits a refresh added: 8 bytes a commit, read whole
in a fraction of a millisecond on a history of 30,000 commits.

It is derived data, trusted only as far as the genome's bookkeeping vouches for it: each
refresh records how many commits it packed under :data:`TIMES_STATE`, and a refresh by a
version that does not pack them rewrites the bookkeeping without that key. Readers then count
from ``genome_commits`` as before, and the next refresh packs every commit again.
"""

from __future__ import annotations

import sqlite3
import sys
from array import array
from typing import Final

TIMES_DDL: Final = (
    "CREATE TABLE IF NOT EXISTS genome_times(first INTEGER PRIMARY KEY, ts BLOB NOT NULL)"
)
"""One row per stretch: the commit number of its first commit and their packed times."""

TIMES_STATE: Final = "packed_times"
"""The bookkeeping key (``genome_state``) holding how many commits the packed times cover."""

MAX_PARTS: Final = 64
"""Stretches kept before a refresh joins them into one: each refresh that indexes new commits
adds one, and a reader reads them all."""

_SWAP: Final = sys.byteorder != "little"


def _pack(times: array[int]) -> bytes:
    if _SWAP:
        times = array("q", times)
        times.byteswap()
    return times.tobytes()


def _unpack(blob: bytes) -> array[int]:
    times = array("q")
    times.frombytes(blob)
    if _SWAP:
        times.byteswap()
    return times


def write_times(conn: sqlite3.Connection, before: dict[str, str], state: dict[str, str]) -> None:
    """Pack the times of the commits ``genome_times`` lacks and record the count in ``state``
    (the bookkeeping the refresh is about to write); ``before`` is the bookkeeping the refresh
    started from. Stretches it does not vouch for (an older version refreshed since, or none
    were ever packed) are dropped and every commit packed again. The caller holds the write
    transaction, after the commits were written."""
    conn.execute(TIMES_DDL)
    total = int(conn.execute("SELECT coalesce(max(seq), 0) FROM genome_commits").fetchone()[0])
    parts = conn.execute("SELECT first, length(ts) / 8 FROM genome_times ORDER BY first").fetchall()
    covered = 0
    for first, count in parts:
        if first != covered + 1:
            covered = -1
            break
        covered += count
    if str(covered) != before.get(TIMES_STATE) or covered > total:
        conn.execute("DELETE FROM genome_times")
        covered = 0
    elif len(parts) >= MAX_PARTS:
        _join_parts(conn)
    if covered < total:
        times = array("q")
        for seq, ts in conn.execute(
            "SELECT seq, ts FROM genome_commits WHERE seq > ? ORDER BY seq", (covered,)
        ):
            if seq != covered + 1 + len(times):  # commit numbers with a gap: nothing packed
                conn.execute("DELETE FROM genome_times")
                return
            times.append(int(ts))
        conn.execute(
            "INSERT INTO genome_times(first, ts) VALUES(?, ?)", (covered + 1, _pack(times))
        )
    state[TIMES_STATE] = str(total)


def _join_parts(conn: sqlite3.Connection) -> None:
    """Replace the stretches by one holding them all (their bytes joined, no commit read)."""
    blobs = [blob for (blob,) in conn.execute("SELECT ts FROM genome_times ORDER BY first")]
    conn.execute("DELETE FROM genome_times")
    conn.execute("INSERT INTO genome_times(first, ts) VALUES(1, ?)", (b"".join(blobs),))


def clear_times(conn: sqlite3.Connection) -> None:
    """Forget the packed times (before a rebuild); the caller holds the write transaction."""
    conn.execute(TIMES_DDL)
    conn.execute("DELETE FROM genome_times")


def read_times(conn: sqlite3.Connection) -> array[int] | None:
    """The time of every indexed commit, commit ``n`` at index ``n`` (index 0 holds nothing),
    in one statement; None when the bookkeeping does not vouch for the packed times (an index
    made or last refreshed by a version without them) or they do not add up."""
    try:
        rows = conn.execute(
            "SELECT (SELECT value FROM genome_state WHERE key = ?), first, ts "
            "FROM genome_times ORDER BY first",
            (TIMES_STATE,),
        ).fetchall()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):  # an index made before the packed times
            return None
        raise
    if not rows or rows[0][0] is None:
        return None
    times = array("q", (0,))
    for _, first, blob in rows:
        if first != len(times):
            return None
        times.extend(_unpack(blob))
    return times if str(len(times) - 1) == rows[0][0] else None


def packed_count(state: dict[str, str]) -> int | None:
    """How many commits the packed times cover, as the bookkeeping ``state`` says (None: the
    packed times are not to be used)."""
    value = state.get(TIMES_STATE)
    return int(value) if value is not None and value.isdigit() else None
