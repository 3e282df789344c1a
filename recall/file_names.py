"""The names a file went by in git's history, read from the renames the index's genome keeps.

A memory names files as they were called when it was written; after ``git mv`` it still
names the old path until ``tether repoint`` rewrites it. Recall's file channel follows renames
(a memory naming an earlier name of a touched file counts as naming it), and so do the edit
hooks' guards and warnings, ``tether check`` and ``tether list --file``, all through
:func:`earlier_names`. This module imports nothing of the genome's package: an edit hook,
which must start in a few tens of milliseconds, reads the rename table directly. It reads the
table as it is: a reader that must see the history as of HEAD (every one of them: a rename
committed since the last refresh is followed at once) catches the table up first
(:func:`recall.genome.catch_up.catch_up`). A file in a submodule goes by the names its folder
had: git's history renames a submodule moved to another folder, never the files in it.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import math
import sqlite3
import sys
from array import array
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import NamedTuple

from recall.submodule_names import (
    submodule_forward,
    submodule_left,
    submodule_steps,
    submodules,
)

Events = Callable[[str], list[tuple[int, str]]]
"""The rename events of one name, in commit order: (commit number, the other name)."""


@contextlib.contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """Every statement of the block reads one state of the database: a read transaction
    around them (in WAL mode a refresh another connection commits meanwhile stays unseen
    until it ends), or the caller's own transaction when one is open."""
    if conn.in_transaction:
        yield
        return
    try:  # begun inside: an interrupt between BEGIN and the block still ends it
        conn.execute("BEGIN")
        yield
    finally:
        if conn.in_transaction:  # nothing was written: ending it only lets the snapshot go
            conn.execute("COMMIT")


def rename_events(conn: sqlite3.Connection, column: str, name: str) -> list[tuple[int, str]]:
    """The renames whose ``column`` ("old" or "new") is ``name``: (commit number, the other
    name), in commit order."""
    other = {"old": "new", "new": "old"}[column]
    cur = conn.cursor()
    cur.row_factory = None
    return cur.execute(
        f"SELECT seq, {other} FROM genome_renames WHERE {column} = ? ORDER BY seq, rowid",
        (name,),
    ).fetchall()


def _events(conn: sqlite3.Connection, column: str) -> Events:
    """The rename events of a name by ``column`` (:func:`rename_events`), read from ``conn``."""
    return lambda name: rename_events(conn, column, name)


def follow_forward(path: str, left: Events) -> str | None:
    """The current name of the file most recently renamed away from ``path`` (``left``: the
    events by the name left); None when ``path`` was never renamed away or the chain comes
    back to it. A name can be left, reused and left again, so each step only follows events
    later than the step before it."""
    events = left(path)
    if not events:
        return None
    seq, current = events[-1]
    while True:
        later = left(current)
        index = bisect.bisect_right(later, seq, key=itemgetter(0))
        if index >= len(later):
            break
        seq, current = later[index]
    return None if current == path else current


def follow_backward(path: str, taken: Events) -> list[str]:
    """The earlier names of the file that was last renamed to ``path``, newest first
    (``taken``: the events by the name taken); each step only follows earlier events."""
    return [name for name, _ in backward_steps(path, taken)]


def backward_steps(path: str, taken: Events) -> list[tuple[str, int]]:
    """:func:`follow_backward` with, beside each name, the commit number of the rename that
    took the file away from it (the latest, for a name the file had twice)."""
    events = taken(path)
    if not events:
        return []
    seq, current = events[-1]
    found = {current: seq}
    while True:
        earlier = taken(current)
        index = bisect.bisect_left(earlier, seq, key=itemgetter(0)) - 1
        if index < 0:
            break
        seq, current = earlier[index]
        found.setdefault(current, seq)
    return [(name, seq) for name, seq in found.items() if name != path]


class EarlierName(NamedTuple):
    """A name of a file, and the moments (seconds) between which a memory naming it must be
    written to be about the file: before ``before`` (inf: any time) and at or after ``after``
    (-inf: any time). An earlier name has a ``before`` when the name was taken again
    (:func:`dated_names`); the file's own name an ``after`` when it took the name after
    another file left it (:func:`held_since`)."""

    name: str
    before: float
    after: float = -math.inf


def dated_names(
    steps: Sequence[tuple[str, int]],
    times: dict[int, int],
    exists: Callable[[str], bool],
    back: Mapping[tuple[str, int], int | None] | None = None,
) -> list[EarlierName]:
    """The earlier names of ``steps`` (:func:`backward_steps`) a memory may name the file by.
    A name no file took after the rename is the file's alone: every memory naming it follows
    the rename. A name a file took again was reused, even when that file is gone since: only a
    memory written before the name was taken again is about the renamed file; after it, the
    name meant the new file. ``back`` gives the commit that brought each name back
    (:func:`reuse_commits`, by name and the rename's commit number; a name missing there and
    no file's now counts as never taken again) and ``times`` the commits' times; the rename's
    time stands in for a return whose time is not known, and a reused name with neither time
    known is left to the file that took it."""
    found = []
    for name, seq in steps:
        returned = back.get((name, seq)) if back else None
        if returned is None and not exists(name):
            found.append(EarlierName(name, math.inf))
            continue
        moment = times.get(returned) if returned is not None else None
        if moment is None:
            moment = times.get(seq)
        if moment is not None:
            found.append(EarlierName(name, float(moment)))
    return found


def left_step(path: str, left: Events) -> tuple[str, int] | None:
    """``(path, commit number)`` of the rename that last took a file away from ``path``, when
    that file has another name now (``left``: the events by the name left): the file at
    ``path`` now took the name after it. None when no file was renamed away from ``path``, or
    its chain of renames comes back to it (the file there now is the one that left)."""
    if follow_forward(path, left) is None:
        return None
    return path, left(path)[-1][0]


def held_since(
    step: tuple[str, int], times: dict[int, int], back: Mapping[tuple[str, int], int | None]
) -> EarlierName:
    """The name of ``step`` (:func:`left_step`) as the file there now has it: a memory
    naming it is about that file when written at or after the commit that brought the name
    back, or the rename when that commit is not known (``back``, :func:`reuse_commits`;
    ``times``, the commits' times). Written before, it is about the file that left, which
    recall finds it on (:func:`dated_names`). With neither time known the name is left to the
    file there now, as :func:`dated_names` leaves it."""
    returned = back.get(step)
    moment = times.get(returned) if returned is not None else None
    if moment is None:
        moment = times.get(step[1])
    return EarlierName(step[0], math.inf, -math.inf if moment is None else float(moment))


def commit_times(conn: sqlite3.Connection, seqs: Collection[int]) -> dict[int, int]:
    """The commit time of each indexed commit of ``seqs`` (by commit number), one statement."""
    cur = conn.cursor()
    cur.row_factory = None
    return dict(
        cur.execute(
            "SELECT seq, ts FROM genome_commits WHERE seq IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(seqs)),),
        ).fetchall()
    )


def _numbers(blob: bytes | None) -> array[int]:
    """The commit numbers of a file's ``seqs`` (packed as :mod:`recall.genome.packing` packs
    them, which this module does not import)."""
    values = array("i")
    if blob:
        values.frombytes(blob)
        if sys.byteorder != "little":
            values.byteswap()
    return values


def reuse_commits(
    conn: sqlite3.Connection, asked: Collection[tuple[str, int]]
) -> dict[tuple[str, int], int | None]:
    """For each (name, commit number of the rename that left it) of ``asked``, the commit that
    brought the name back (None when the genome knows no such commit). Two statements, and for
    a name no file took and kept, those of :func:`_held_again`.

    A file renamed into the name brought it back with that rename: its commits before it were
    made under another name, though they are among its commits. Otherwise the first, at or
    after the rename, of the commits of the file that has the name now or had it last (it was
    added there, and may be gone since), or of the file that took it and left it again."""
    if not asked:
        return {}
    cur = conn.cursor()
    cur.row_factory = None
    wanted = json.dumps(sorted({name for name, _ in asked}))
    rows = cur.execute(
        "SELECT path, seqs FROM genome_files WHERE path IN (SELECT value FROM json_each(?))",
        (wanted,),
    )
    seqs = {path: _numbers(blob) for path, blob in rows}
    into: dict[str, list[int]] = {}
    for new, seq in cur.execute(
        "SELECT new, seq FROM genome_renames WHERE new IN (SELECT value FROM json_each(?))",
        (wanted,),
    ):
        into.setdefault(new, []).append(seq)
    found: dict[tuple[str, int], int | None] = {}
    for step in asked:
        name, seq = step
        renamed_in = [at for at in into.get(name, ()) if at >= seq]
        if renamed_in:
            found[(name, seq)] = min(renamed_in)
            continue
        numbers = seqs.get(name, ())
        index = bisect.bisect_left(numbers, seq)
        found[(name, seq)] = numbers[index] if index < len(numbers) else _held_again(conn, *step)
    return found


def _held_again(conn: sqlite3.Connection, name: str, seq: int) -> int | None:
    """The first commit, at or after the rename at ``seq``, of a file that took ``name`` again
    and left it by a later rename in turn (its row is under the name it went to); None when no
    file left the name again. A statement per rename followed, for such names only."""
    left = rename_events(conn, "old", name)
    index = bisect.bisect_right(left, seq, key=itemgetter(0))
    if index >= len(left):
        return None
    departed, current = left[index]
    step = departed
    while True:  # the name that file has now (or had last)
        later = rename_events(conn, "old", current)
        index = bisect.bisect_right(later, step, key=itemgetter(0))
        if index >= len(later):
            break
        step, current = later[index]
    row = conn.execute("SELECT seqs FROM genome_files WHERE path = ?", (current,)).fetchone()
    numbers = _numbers(row[0] if row else None)
    index = bisect.bisect_left(numbers, seq)
    return numbers[index] if index < len(numbers) and numbers[index] <= departed else None


def unread(
    steps: Sequence[tuple[str, int]],
    times: dict[int, int],
    back: dict[tuple[str, int], int | None],
) -> bool:
    """Whether :func:`read_reuse` has anything to read for ``steps`` given what it kept."""
    for step in steps:
        if step not in back or step[1] not in times:
            return True
        returned = back[step]
        if returned is not None and returned not in times:
            return True
    return False


def read_reuse(
    conn: sqlite3.Connection,
    steps: Sequence[tuple[str, int]],
    times: dict[int, int],
    back: dict[tuple[str, int], int | None],
) -> None:
    """Add to ``back`` the commit that brought each name of ``steps`` (:func:`backward_steps`)
    back (:func:`reuse_commits`) and to ``times`` the times of those commits and of the
    renames, reading only what they lack: a statement each at most, none without steps."""
    asked = [step for step in steps if step not in back]
    if asked:
        back.update(reuse_commits(conn, asked))
    wanted = {seq for _, seq in steps}
    wanted.update(returned for step in steps if (returned := back[step]) is not None)
    missing = wanted - times.keys()
    if missing:
        times.update(commit_times(conn, missing))


def earlier_names(conn: sqlite3.Connection, path: str) -> list[str]:
    """The earlier names of the file now at ``path``, newest first, as the genome last read
    git's history (``tether index``, a recall, a prompt hook or a reader's
    :func:`recall.genome.catch_up.catch_up` bring it up to date); none when the index holds no
    history (never indexed, or built by another version: a guard found through a stale rename
    asks once too often, never too seldom)."""
    try:
        with read_snapshot(conn):  # one state of the table: a refresh renumbers commits
            taken = _events(conn, "new")
            steps = backward_steps(path, taken) or submodule_steps(
                path, submodules(conn), lambda folder: backward_steps(folder, taken)
            )
    except sqlite3.OperationalError:  # no genome tables (yet)
        return []
    return [name for name, _ in steps]


def earlier_dated(
    conn: sqlite3.Connection, path: str, exists: Callable[[str], bool]
) -> list[EarlierName]:
    """:func:`earlier_names` as :func:`dated_names` keeps them (``exists``: whether a file of
    the repository has a name now), read in one state of the genome."""
    times: dict[int, int] = {}
    back: dict[tuple[str, int], int | None] = {}
    try:
        with read_snapshot(conn):
            taken = _events(conn, "new")
            steps = backward_steps(path, taken) or submodule_steps(
                path, submodules(conn), lambda folder: backward_steps(folder, taken)
            )
            read_reuse(conn, steps, times, back)
    except sqlite3.OperationalError:  # no genome tables (yet)
        return []
    return dated_names(steps, times, exists, back)


def renamed_into(conn: sqlite3.Connection, folder: str) -> list[str]:
    """The names under ``folder`` that a rename gave a file, as the genome last read them."""
    prefix = folder.rstrip("/") + "/"
    query = "SELECT DISTINCT new FROM genome_renames WHERE new >= ? AND new < ? ORDER BY new"
    try:  # the paths from "folder/" up to "folder0" ("0" follows "/"): a range of the index
        return [new for (new,) in conn.execute(query, (prefix, prefix[:-1] + "0"))]
    except sqlite3.OperationalError:  # no genome tables (yet)
        return []


def own_name(conn: sqlite3.Connection, path: str) -> EarlierName:
    """``path`` as the file there now has it (:func:`held_since`), read in one state of the
    genome: a memory naming it written before another file left the name is about that file."""
    times: dict[int, int] = {}
    back: dict[tuple[str, int], int | None] = {}
    try:
        with read_snapshot(conn):
            left = _events(conn, "old")
            step = left_step(path, left) or submodule_left(
                path, submodules(conn), lambda folder: left_step(folder, left)
            )
            if step is None:
                return EarlierName(path, math.inf)
            read_reuse(conn, [step], times, back)
    except sqlite3.OperationalError:  # no genome tables (yet)
        return EarlierName(path, math.inf)
    return held_since(step, times, back)


def later_name(conn: sqlite3.Connection, path: str) -> str | None:
    """The name the file last renamed away from ``path`` has now, following every later
    rename (what ``tether repoint`` would write, when that name still exists); None when the
    index knows no such rename."""
    try:
        with read_snapshot(conn):
            left = _events(conn, "old")
            found = follow_forward(path, left)
            if found is None:
                found = submodule_forward(
                    path, submodules(conn), lambda name: follow_forward(name, left)
                )
            return found
    except sqlite3.OperationalError:  # no genome tables (yet)
        return None
