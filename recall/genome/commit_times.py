"""Every indexed commit's time in a few packed rows, so drift counts read them in one go.

A drift count needs the time of each commit that touched a hit's files: on a hub file's
memories that is 10,000-15,000 commits, which read as rows of ``genome_commits`` cost
10-15 ms. ``genome_times`` holds the same times packed (little-endian 64-bit, in commit
number order), one row per stretch of commits a refresh added, read whole in well under a
millisecond. It is derived data: a refresh fills in what it lacks (an index made before it
existed included), and a reader that finds it incomplete reads ``genome_commits`` as before.
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

MAX_PARTS: Final = 64
"""Stretches kept before a refresh packs them into one: each refresh that indexes new commits
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


def write_times(conn: sqlite3.Connection) -> None:
    """Pack the times of the commits ``genome_times`` lacks (all of them for an index made
    before it existed, else those a refresh just added); the caller holds the write
    transaction, after the commits were written."""
    conn.execute(TIMES_DDL)
    total = int(conn.execute("SELECT coalesce(max(seq), 0) FROM genome_commits").fetchone()[0])
    parts = conn.execute("SELECT first, length(ts) / 8 FROM genome_times ORDER BY first").fetchall()
    covered = 0
    for first, count in parts:
        if first != covered + 1:  # not a run of stretches from the first commit: start over
            covered = -1
            break
        covered += count
    if covered < 0 or covered > total or len(parts) >= MAX_PARTS:
        conn.execute("DELETE FROM genome_times")
        covered = 0
    if covered == total:
        return
    times = array("q")
    for seq, ts in conn.execute(
        "SELECT seq, ts FROM genome_commits WHERE seq > ? ORDER BY seq", (covered,)
    ):
        if seq != covered + 1 + len(times):  # commit numbers with a gap: no packed times
            conn.execute("DELETE FROM genome_times")
            return
        times.append(int(ts))
    conn.execute("INSERT INTO genome_times(first, ts) VALUES(?, ?)", (covered + 1, _pack(times)))


def clear_times(conn: sqlite3.Connection) -> None:
    """Forget the packed times (before a rebuild); the caller holds the write transaction."""
    conn.execute(TIMES_DDL)
    conn.execute("DELETE FROM genome_times")


def read_times(conn: sqlite3.Connection) -> array[int] | None:
    """The time of every indexed commit, commit ``n`` at index ``n`` (index 0 holds nothing);
    None when the packed times do not cover every commit (an index a refresh has not filled
    in yet)."""
    try:
        rows = conn.execute(
            "SELECT (SELECT coalesce(max(seq), 0) FROM genome_commits), first, ts "
            "FROM genome_times ORDER BY first"
        ).fetchall()
    except sqlite3.OperationalError:  # no such table: made before the packed times
        return None
    if not rows:
        return None
    times = array("q", (0,))
    for _, first, blob in rows:
        if first != len(times):
            return None
        times.extend(_unpack(blob))
    return times if len(times) == rows[0][0] + 1 else None
