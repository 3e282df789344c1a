"""The genome: what the repository knows about its files, cached in the index database.

Queries (``exists``, ``neighbours``, ``fan_in``…) are indexed look-ups and never run git.
``refresh`` brings the cache up to date (see ``recall.genome.refresh``): one streamed
history read from the last indexed commit, one ``git ls-files``, and a re-scan of the
source files that changed.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import sqlite3
import stat
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from recall.errors import BadInput
from recall.genome.filerows import SQL_CHUNK
from recall.genome.headref import find_git_dir, read_head
from recall.genome.limits import MAX_COMMIT_FILES
from recall.genome.packing import unpack, unpack_near
from recall.genome.renames import RenameIndex
from recall.genome.results import IndexSummary, Neighbour
from recall.genome.schema import read_state, schema_current

Progress = Callable[[str, int, int | None], None]

_HEX = re.compile(r"[0-9a-fA-F]{4,64}")

# Neighbour candidates named per query; a tie at the cut extends the chunk.
NEIGHBOUR_CHUNK = 16


def _by_count(pair: tuple[int, int]) -> int:
    return -pair[1]


class Genome:
    """What the repository at ``repo_root`` knows, cached in the index connection ``conn``.

    ``repo_root`` None means there is no project folder: queries answer from whatever the
    index holds, and a refresh only reports why nothing can be read.
    """

    def __init__(
        self,
        repo_root: Path | None,
        conn: sqlite3.Connection,
        *,
        max_commit_files: int = MAX_COMMIT_FILES,
    ) -> None:
        """Bind to a repository and an index; nothing is read until the first query."""
        self.repo_root = Path(repo_root) if repo_root is not None else None
        self.conn = conn
        self.max_commit_files = max_commit_files
        self.last_summary: IndexSummary | None = None
        self._forget()

    def rebind(self, conn: sqlite3.Connection) -> None:
        """Read from ``conn`` from now on: the index was rebuilt on a new connection (after
        damage), and what was read from the old one is forgotten. A rebuilt index holds no
        genome until the next refresh, so until then the genome answers nothing."""
        self.conn = conn
        self._forget()

    def _forget(self) -> None:
        self._ready: bool | None = None
        self._state: dict[str, str] | None = None
        self._renames: RenameIndex | None = None
        self._ids: dict[str, int | None] = {}
        self._times: dict[int, list[int]] = {}
        self._commit_times: dict[int, int] | None = None

    @classmethod
    def load(
        cls,
        repo_root: Path | None,
        conn: sqlite3.Connection,
        *,
        max_commit_files: int = MAX_COMMIT_FILES,
        refresh: bool = True,
        progress: Progress | None = None,
    ) -> Genome:
        """Open the genome and, when ``refresh`` is set and it is stale, bring it up to date.

        Opening an up-to-date genome reads a few files under ``.git`` and runs no git
        process (one ``git rev-parse`` only for ref layouts it cannot read directly).
        """
        genome = cls(repo_root, conn, max_commit_files=max_commit_files)
        if refresh and genome.is_stale():
            genome.refresh(progress=progress)
        return genome

    # -- freshness -------------------------------------------------------------------------

    def _is_ready(self) -> bool:
        if self._ready is None:
            self._ready = schema_current(self.conn)
        return self._ready

    def _stored_state(self) -> dict[str, str]:
        if self._state is None:
            self._state = read_state(self.conn) if self._is_ready() else {}
        return self._state

    def is_stale(self) -> bool:
        """Tell whether HEAD, git's index or the settings moved since the last refresh.

        Also notices a refresh made by another process, and drops what this object had
        cached from before it, so a long-lived genome (the language server's) stays current.
        """
        if self.repo_root is None:
            return False
        state = read_state(self.conn) if schema_current(self.conn) else {}
        if state != self._state:
            self._forget()
            self._state = state
        if not state or state.get("max_commit_files") != str(self.max_commit_files):
            return True
        if state.get("mode") == "unavailable":
            return find_git_dir(self.repo_root) is not None
        current = read_head(self.repo_root)
        if current is None:
            return True
        return (current.head or "") != state.get("head", "") or current.index_sig != state.get(
            "index_sig", ""
        )

    # -- refresh ---------------------------------------------------------------------------

    def refresh(self, full: bool = False, progress: Progress | None = None) -> IndexSummary:
        """Bring the cache up to date with the repository; return what was done.

        Incremental unless ``full``, the settings changed, or history was rewritten (the last
        indexed commit is no longer an ancestor of HEAD). Never raises for a missing git,
        a folder outside any repository, an empty repository, a shallow clone, a detached
        HEAD or a repository git cannot read: those give fewer signals and a one-line notice
        each. ``progress(description, completed, total)`` is called as work advances.
        """
        # Here, not above: the refresh machinery (history, tree listing, import scanners) is
        # needed only when the genome is stale, and a short process usually finds it fresh.
        from recall.genome.refresh import Refresh

        try:
            summary = Refresh(self.repo_root, self.conn, self.max_commit_files).run(full, progress)
        finally:
            self._forget()
        self.last_summary = summary
        return summary

    # -- queries ---------------------------------------------------------------------------

    def _file_id(self, path: str) -> int | None:
        if path in self._ids:
            return self._ids[path]
        ident = None
        if self._is_ready():
            row = self.conn.execute(
                "SELECT id FROM genome_files WHERE path = ?", (path,)
            ).fetchone()
            ident = row[0] if row is not None else None
        self._ids[path] = ident
        return ident

    def exists(self, path: str) -> bool:
        """Tell whether ``path`` is a file of the working tree now.

        A file listed at the last refresh (tracked, or untracked and not ignored) exists if it
        is still on disk. A file on disk that the last refresh did not list exists only if it
        appeared after that refresh; one that was already there was left out as ignored.
        """
        listed = False
        if self._is_ready():
            row = self.conn.execute("SELECT 1 FROM genome_tree WHERE path = ?", (path,)).fetchone()
            listed = row is not None
        if self.repo_root is None:
            return listed
        try:
            info = os.stat(self.repo_root / path)
        except (OSError, ValueError):
            return False
        if not stat.S_ISREG(info.st_mode):
            return False
        if listed:
            return True
        tree_time = self._stored_state().get("tree_time")
        if not tree_time:
            return True
        return max(info.st_ctime, info.st_mtime) > float(tree_time)

    def neighbours(
        self, path: str, k: int = 10, *, include_missing: bool = False
    ) -> list[Neighbour]:
        """Up to ``k`` files that most often changed in the same commits as ``path``.

        Strongest first, ties by path. Files no longer in the tree are left out unless
        ``include_missing``. Commits over the size cap do not count.
        """
        if k <= 0 or not self._is_ready():
            return []
        row = self.conn.execute(
            "SELECT commits, near FROM genome_files WHERE path = ?", (path,)
        ).fetchone()
        if row is None:
            return []
        commits = int(row[0])
        pairs = sorted(unpack_near(row[1]), key=_by_count)
        found: list[Neighbour] = []
        start = 0
        while start < len(pairs) and len(found) < k:
            end = min(start + max(2 * k, NEIGHBOUR_CHUNK), len(pairs))
            while end < len(pairs) and pairs[end][1] == pairs[end - 1][1]:
                end += 1
            chunk = pairs[start:end]
            names = self._names([ident for ident, _ in chunk], include_missing)
            ranked = sorted((-n, names[i]) for i, n in chunk if i in names)
            found.extend(
                Neighbour(name, -neg, -neg / commits if commits else 0.0, commits)
                for neg, name in ranked
            )
            start = end
        return found[:k]

    def _names(self, idents: list[int], include_missing: bool) -> dict[int, str]:
        """Current names of ``idents`` (only those in the tree unless ``include_missing``)."""
        condition = (
            ""
            if include_missing
            else " AND EXISTS (SELECT 1 FROM genome_tree t WHERE t.path = f.path)"
        )
        names: dict[int, str] = {}
        for start in range(0, len(idents), SQL_CHUNK):
            chunk = idents[start : start + SQL_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT id, path FROM genome_files f WHERE id IN ({marks}){condition}", chunk
            )
            names.update((row[0], row[1]) for row in rows)
        return names

    def fan_in(self, path: str) -> int:
        """How many files of the repository import ``path`` (0 when unknown)."""
        if not self._is_ready():
            return 0
        row = self.conn.execute("SELECT fan_in FROM genome_tree WHERE path = ?", (path,)).fetchone()
        return int(row[0]) if row is not None else 0

    def _rename_index(self) -> RenameIndex:
        if self._renames is None:
            rows: list[tuple[int, str, str]] = []
            if self._is_ready():
                cur = self.conn.cursor()
                cur.row_factory = None
                rows = cur.execute(
                    "SELECT seq, old, new FROM genome_renames ORDER BY seq"
                ).fetchall()
            self._renames = RenameIndex(rows)
        return self._renames

    def renamed_to(self, path: str) -> str | None:
        """The name the file last renamed away from ``path`` has now, following every later
        rename; None when ``path`` was never renamed (or the chain leads back to it)."""
        return self._rename_index().forward(path)

    def renamed_from(self, path: str) -> list[str]:
        """The earlier names of the file now at ``path``, most recent first."""
        return self._rename_index().backward(path)

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

        Two statements whatever the number of pairs, and none for files asked before: each
        file's commit times are kept, sorted, until the genome changes.
        """
        dated: dict[tuple[str, str], float] = {}
        for path, since in asked:
            stamp = None if _HEX.fullmatch(since) else _parse_date(since)
            if stamp is not None:
                dated[(path, since)] = stamp
        if not dated or not self._is_ready():
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
        moved = {path: self.renamed_to(path) for path in paths}
        names = sorted(paths | {name for name in moved.values() if name})
        known = dict(
            self.conn.execute(
                "SELECT path, id FROM genome_files WHERE path IN (SELECT value FROM json_each(?))",
                (json.dumps(names),),
            ).fetchall()
        )
        found: dict[str, int | None] = {}
        for path in paths:
            ident = known.get(path)
            if ident is None and moved[path]:
                ident = known.get(moved[path])
            found[path] = ident
        return found

    def _load_times(self, idents: set[int]) -> None:
        """Keep the sorted commit times of each file identity not kept yet (one statement, and
        one more for every commit's time the first time)."""
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
        if self._commit_times is None:  # every commit's time, read once per genome state
            self._commit_times = dict(
                self.conn.execute("SELECT seq, ts FROM genome_commits").fetchall()
            )
        times = self._commit_times
        for ident in wanted:
            self._times[ident] = sorted(times[seq] for seq in seqs.get(ident, ()) if seq in times)

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
