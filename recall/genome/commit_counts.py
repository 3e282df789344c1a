"""How many commits changed a file since a date or a commit: the counts behind drift.

Mixed into :class:`~recall.genome.genome.Genome`, which provides the index connection, the
repository, whether the genome is built, file identities and renames.
"""

from __future__ import annotations

import bisect
import json
import re
import sqlite3
from array import array
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall.errors import BadInput
from recall.file_names import read_snapshot
from recall.genome.commit_times import packed_count, read_times
from recall.genome.filerows import SQL_CHUNK
from recall.genome.packing import unpack
from recall.index.db import tuples

_HEX = re.compile(r"[0-9a-fA-F]{4,64}")

PACKED_FROM_SHARE: Final = 64
"""Drift counts read the packed times of every commit once the commits asked for number at
least one in this many of all: a commit's row costs about 75 times a packed time to read
(0.6 microseconds against 0.008 on networkmanager's 32,000 commits). A speed setting: either
way gives the same counts."""


class CommitCounts:
    """Commit counts per file, from the indexed history (git only for a commit it lacks)."""

    conn: sqlite3.Connection
    repo_root: Path | None
    _times: dict[int, list[int]]
    _commit_times: dict[int, int] | None
    _packed_times: array[int] | None
    _packed_refused: bool
    _ids: dict[str, int | None]

    if TYPE_CHECKING:  # provided by the genome this is mixed into

        def _is_ready(self) -> bool: ...

        def _file_id(self, path: str) -> int | None: ...

        def renamed_to(self, path: str) -> str | None: ...

        def _stored_state(self) -> dict[str, str]: ...

        def _adopt_state(self) -> bool: ...

    def commits_touching(self, path: str, since: str) -> int:
        """How many indexed commits changed ``path`` after ``since``.

        ``since`` is an ISO date or time (commits at or after it count) or a commit id, full
        or abbreviated (commits indexed after it count). A path that was renamed away is
        followed to its current name. Raises :class:`BadInput` for an unknown commit or a
        value that is neither.
        """
        ident = self._file_id(path)
        if ident is None:
            moved = self.renamed_to(path)
            ident = self._file_id(moved) if moved else None
        if _HEX.fullmatch(since):
            after = self._commit_seq(since)
            if after is not None:
                seqs = self._seqs(ident)
                return len(seqs) - bisect.bisect_right(seqs, after)
        stamp = _parse_date(since)
        if stamp is not None:
            return self._count_from(ident, stamp)
        if _HEX.fullmatch(since):
            commit_time = self._commit_time(since)
            if commit_time is not None:
                return self._count_from(ident, commit_time + 1)
        raise BadInput(f"{since!r} is neither an ISO date nor a known commit")

    def commits_touching_many(self, asked: Sequence[tuple[str, str]]) -> dict[tuple[str, str], int]:
        """:meth:`commits_touching` of many ``(path, since)`` pairs at once, for those whose
        ``since`` is an ISO date (the others are left out: ask them one by one).

        A few statements whatever the number of pairs, all in one read of the index (its
        bookkeeping first: what was kept from before a refresh by another process is
        forgotten), and none for files asked before: each file's commit times are kept,
        sorted, until the genome changes.
        """
        dated: dict[tuple[str, str], float] = {}
        for path, since in asked:
            stamp = None if _HEX.fullmatch(since) else _parse_date(since)
            if stamp is not None:
                dated[(path, since)] = stamp
        if not dated:
            return {}
        # One state of the genome for every read, and what was kept from another forgotten:
        # a process that rebuilt a rewritten history gave its commit numbers to other commits.
        with read_snapshot(self.conn):
            self._adopt_state()
            if not self._is_ready():
                return dict.fromkeys(dated, 0)
            idents = self._file_ids_of({path for path, _ in dated})
            self._load_times({ident for ident in idents.values() if ident is not None})
        found: dict[tuple[str, str], int] = {}
        for (path, since), stamp in dated.items():
            times = self._times.get(idents[path], []) if idents[path] is not None else []
            found[(path, since)] = len(times) - bisect.bisect_left(times, stamp)
        return found

    def _file_ids_of(self, paths: set[str]) -> dict[str, int | None]:
        """The identity of each path as :meth:`commits_touching` finds it (a path renamed
        away by its current name), in one statement."""
        known = self._file_ids(paths)
        # Only a path the genome does not know by that name is followed through its renames
        # (the rename index is then read; a recall on files that exist never reads it).
        moved = {path: self.renamed_to(path) for path in paths if path not in known}
        known.update(self._file_ids({name for name in moved.values() if name} - known.keys()))
        found: dict[str, int | None] = {}
        for path in paths:
            ident = known.get(path)
            if ident is None and moved.get(path):
                ident = known.get(moved[path])
            found[path] = ident
        return found

    def _file_ids(self, paths: set[str]) -> dict[str, int]:
        """The identity of each of ``paths`` the genome knows by that name, in one statement
        for the paths not asked before (identities are kept with the genome's state)."""
        missing = sorted(path for path in paths if path not in self._ids)
        if missing:
            found = dict(
                self.conn.execute(
                    "SELECT path, id FROM genome_files "
                    "WHERE path IN (SELECT value FROM json_each(?))",
                    (json.dumps(missing),),
                ).fetchall()
            )
            for path in missing:
                self._ids[path] = found.get(path)
        return {path: ident for path in paths if (ident := self._ids[path]) is not None}

    def _load_times(self, idents: set[int]) -> None:
        """Keep the sorted commit times of each file identity not kept yet: one statement for
        their commits, and one for the times of those commits not met before (only those: a
        first query after an import reads the few thousand commits of its hits' files, not
        every commit of the history)."""
        wanted = sorted(idents - self._times.keys())
        if not wanted:
            return
        seqs = {
            ident: unpack(blob)
            for ident, blob in self.conn.execute(
                "SELECT id, seqs FROM genome_files WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(wanted),),
            )
        }
        packed = self._packed_for(seqs)
        if packed is not None:
            for ident in wanted:
                self._times[ident] = sorted(map(packed.__getitem__, seqs.get(ident, ())))
            return
        times = self._commit_times
        if times is None:  # the times met so far, kept per genome state
            times = self._commit_times = {}
        unknown = set().union(*seqs.values()) - times.keys()
        if unknown:
            times.update(
                tuples(self.conn)
                .execute(
                    "SELECT seq, ts FROM genome_commits "
                    "WHERE seq IN (SELECT value FROM json_each(?))",
                    (json.dumps(sorted(unknown)),),
                )
                .fetchall()
            )
        for ident in wanted:
            found = seqs.get(ident, ())
            try:  # every commit's time known (the usual case): no test per commit
                self._times[ident] = sorted(map(times.__getitem__, found))
            except KeyError:
                self._times[ident] = sorted(times[seq] for seq in found if seq in times)

    def _packed_for(self, seqs: dict[int, array[int]]) -> array[int] | None:
        """The packed commit times (:mod:`recall.genome.commit_times`) when they hold every
        commit of ``seqs`` and reading them all costs less than reading those commits' rows
        (on a long history, a file with few commits reads its rows); else None."""
        highest = max((max(found) for found in seqs.values() if found), default=0)
        packed = self._packed_times
        if packed is not None and highest < len(packed):
            return packed
        if self._packed_refused:
            return None
        total = packed_count(self._stored_state())
        asked = sum(map(len, seqs.values()))
        if total is None or (packed is None and asked * PACKED_FROM_SHARE < total):
            return None
        # not read yet, or read before another process indexed the newest of these commits
        packed = self._packed_times = read_times(self.conn)
        if packed is None:
            self._packed_refused = True  # until the genome's state changes
            return None
        return packed if highest < len(packed) else None

    def _count_from(self, ident: int | None, stamp: float) -> int:
        """How many commits that touched ``ident`` have a commit time at or after ``stamp``
        (commit times are whole seconds)."""
        seqs = list(self._seqs(ident))
        count = 0
        for start in range(0, len(seqs), SQL_CHUNK):
            chunk = seqs[start : start + SQL_CHUNK]
            marks = ",".join("?" * len(chunk))
            row = self.conn.execute(
                f"SELECT count(*) FROM genome_commits WHERE ts >= ? AND seq IN ({marks})",
                (stamp, *chunk),
            ).fetchone()
            count += int(row[0])
        return count

    def _seqs(self, ident: int | None) -> Sequence[int]:
        """The commits (by index number, ascending) that touched identity ``ident``."""
        if ident is None:
            return ()
        row = self.conn.execute("SELECT seqs FROM genome_files WHERE id = ?", (ident,)).fetchone()
        return unpack(row[0]) if row is not None else ()

    def _commit_seq(self, prefix: str) -> int | None:
        if not self._is_ready():
            return None
        prefix = prefix.lower()
        rows = self.conn.execute(
            "SELECT seq, sha FROM genome_commits WHERE sha >= ? AND sha < ? LIMIT 2",
            (prefix, prefix + "g"),
        ).fetchall()
        if len(rows) > 1:
            raise BadInput(f"commit id {prefix!r} is ambiguous; give more characters")
        return int(rows[0][0]) if rows else None

    def _commit_time(self, revision: str) -> float | None:
        """The commit time of a commit the index does not hold (a merge, say), from git."""
        if self.repo_root is None:
            return None
        from recall.genome.gitcmd import GitRunner, GitUnavailable  # see refresh()

        try:
            runner = GitRunner(self.repo_root)
            status, out, _ = runner.run(
                ["show", "-s", "--format=%ct", f"{revision}^{{commit}}", "--"], check=False
            )
        except GitUnavailable:
            return None
        text = out.decode("ascii", "replace").strip()
        return float(text) if status == 0 and text.isdigit() else None


def _parse_date(text: str) -> float | None:
    """Seconds since the epoch for an ISO date or date-time (UTC unless it says otherwise)."""
    if not re.match(r"\d{4}-\d{2}-\d{2}", text):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()
