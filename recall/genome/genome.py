"""The genome: what the repository knows about its files, cached in the index database.

Queries (``exists``, ``neighbours``, ``fan_in``…) are indexed look-ups and never run git.
``refresh`` brings the cache up to date (see ``recall.genome.refresh``): one streamed
history read from the last indexed commit, one ``git ls-files``, and a re-scan of the
source files that changed.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from recall.file_names import read_snapshot, rename_events
from recall.genome.commit_counts import CommitCounts
from recall.genome.filerows import SQL_CHUNK
from recall.genome.headref import find_git_dir, read_head
from recall.genome.limits import MAX_COMMIT_FILES, NEIGHBOURS_KEPT
from recall.genome.name_dates import DatedNames
from recall.genome.names import OWN_FOLDER, is_git_own, not_checked_out
from recall.genome.packing import unpack_near
from recall.genome.renames import LOOKUPS_MAX, NotKept, RenameIndex, RenameLookups
from recall.genome.results import Neighbour
from recall.genome.schema import SYMBOLS_BEHIND, SYMBOLS_STATE, read_state, schema_current
from recall.genome.submodule_names import SubmoduleNames
from recall.submodule_names import submodule_forward

if TYPE_CHECKING:
    from array import array

    from recall.genome.summary import IndexSummary

Progress = Callable[[str, int, int | None], None]
T = TypeVar("T")

# Neighbour candidates named per query; a tie at the cut extends the chunk.
NEIGHBOUR_CHUNK = 16


def _by_count(pair: tuple[int, int]) -> int:
    return -pair[1]


class Genome(DatedNames, CommitCounts, SubmoduleNames):
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
        symbols: bool = True,
    ) -> None:
        """Bind to a repository and an index; nothing is read until the first query.

        Without ``symbols`` a refresh leaves the symbol index as it was (see
        :class:`recall.genome.refresh.Refresh`), and a symbol index lagging the tree does not
        make the genome stale; with them, it does."""
        self.repo_root = Path(repo_root) if repo_root is not None else None
        self.conn = conn
        self.max_commit_files = max_commit_files
        self.symbols = symbols
        self.last_summary: IndexSummary | None = None
        self._unreported = False
        """A change of bookkeeping taken from the index that refreshed_elsewhere has not told."""
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
        self._rename_lookups: RenameLookups | None = None
        self._ids: dict[str, int | None] = {}
        self._times: dict[int, list[int]] = {}
        self._commit_times: dict[int, int] | None = None
        self._packed_times: array[int] | None = None
        self._packed_refused = False
        self._near: dict[tuple[str, int, bool], list[Neighbour]] = {}
        self._rename_times: dict[int, int] = {}
        self._came_back: dict[tuple[str, int], int | None] = {}
        self._submodules: list[str] | None = None

    @classmethod
    def load(
        cls,
        repo_root: Path | None,
        conn: sqlite3.Connection,
        *,
        max_commit_files: int = MAX_COMMIT_FILES,
        refresh: bool = True,
        progress: Progress | None = None,
        symbols: bool = True,
    ) -> Genome:
        """Open the genome and, when ``refresh`` is set and it is stale, bring it up to date
        (the symbol index too, unless ``symbols`` is off).

        Opening an up-to-date genome reads a few files under ``.git`` and runs no git
        process (one ``git rev-parse`` only for ref layouts it cannot read directly).
        """
        genome = cls(repo_root, conn, max_commit_files=max_commit_files, symbols=symbols)
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

    def _adopt_state(self) -> bool:
        """Take the bookkeeping the index holds now as this object's state, forgetting what
        it kept from another (a refresh by another process not noticed yet); tell whether it
        differed. Inside a read snapshot, the answers that follow read the same state."""
        ready = schema_current(self.conn)
        state = read_state(self.conn) if ready else {}
        if state == self._state:
            return False
        if self._state is not None:  # for refreshed_elsewhere, however it was noticed
            self._unreported = True
        self._forget()
        self._state, self._ready = state, ready
        return True

    def state_token(self) -> str:
        """What identifies the genome's contents: its bookkeeping, which every refresh
        rewrites (the tree listing's time among it). Read once until the next refresh or
        :meth:`is_stale`, as the other answers this object keeps are."""
        return repr(sorted(self._stored_state().items()))

    def refreshed_elsewhere(self) -> bool:
        """Whether another process refreshed the genome in the index since this object read
        its bookkeeping, or since this last said so; what this object kept from before is
        then forgotten. A refresh noticed by a recall's drift counts (which take the current
        bookkeeping) is told here too. Two small statements; False while this object has not
        read its bookkeeping (a recall reads it when it marks drift, so an engine's genome
        has once it has answered)."""
        if self._state is None and not self._unreported:
            return False
        try:
            self._adopt_state()
        except sqlite3.Error:  # an index replaced under it: the next recall rebinds it
            return False
        told, self._unreported = self._unreported, False
        return told

    def is_stale(self) -> bool:
        """Tell whether HEAD, git's index or the settings moved since the last refresh.

        Also notices a refresh made by another process, and drops what this object had
        cached from before it, so a long-lived genome (the language server's) stays current.
        """
        if self.repo_root is None:
            return False
        self._adopt_state()
        state = self._stored_state()
        if not state or state.get("max_commit_files") != str(self.max_commit_files):
            return True
        if self.symbols and state.get(SYMBOLS_STATE) == SYMBOLS_BEHIND:
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
            summary = Refresh(
                self.repo_root, self.conn, self.max_commit_files, symbols=self.symbols
            ).run(full, progress)
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
        """Tell whether ``path`` is a file of the working tree now: a file on disk (or a link
        to one), tracked, untracked or ignored by git, but none of git's own files.

        A file git ignores (a generated one, a local settings file) is there for what names
        it: a memory, a file touched or asked about. What history and the import scan give
        keeps to the files the last refresh listed (:meth:`neighbours`, :meth:`fan_in`): a
        build output a commit once tracked and git ignores now counts for neither. A file a
        sparse checkout leaves out of the working tree exists: it is in git's index, just not
        checked out. Without a project folder, a file exists if the last refresh listed it.
        """
        if self.repo_root is None:
            if not self._is_ready():
                return False
            row = self.conn.execute("SELECT 1 FROM genome_tree WHERE path = ?", (path,)).fetchone()
            return row is not None
        if is_git_own(path):
            return False
        try:
            info = os.stat(self.repo_root / path)
        except (OSError, ValueError):
            return self._sparse(path)
        return stat.S_ISREG(info.st_mode)

    def _sparse(self, path: str) -> bool:
        """Whether the last refresh listed ``path`` as a file of git's index that a sparse
        checkout leaves out of the working tree (one indexed look-up, for a file not on disk)."""
        return self._is_ready() and not_checked_out(self.conn, path)

    def neighbours(
        self, path: str, k: int = 10, *, include_missing: bool = False
    ) -> list[Neighbour]:
        """Up to ``k`` files that most often changed in the same commits as ``path``.

        Strongest first, ties by path. Files no longer in the tree are left out unless
        ``include_missing``. Commits over the size cap do not count. Each answer is kept until
        the next refresh, made here or noticed (:meth:`refreshed_elsewhere`): an editor asks
        the same files on every change.
        """
        if k <= 0 or not self._is_ready():
            return []
        key = (path, k, include_missing)
        found = self._near.get(key)
        if found is None:
            # Read in one state of the index, taken as this genome's: what it kept from another
            # (a refresh by another process not noticed yet) goes first, so that answers kept
            # together never belong to two states.
            with read_snapshot(self.conn):
                self._adopt_state()
                if not self._is_ready():
                    return []
                if len(self._near) >= NEIGHBOURS_KEPT:
                    self._near.clear()
                found = self._near[key] = self._neighbours(path, k, include_missing)
        return list(found)

    def _neighbours(self, path: str, k: int, include_missing: bool) -> list[Neighbour]:
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
        """Current names of ``idents`` (only those in the tree unless ``include_missing``), but
        Tether's own files: memories committed with the code they are about change with it, and
        are no neighbour of it."""
        condition = f" AND substr(f.path, 1, {len(OWN_FOLDER)}) <> '{OWN_FOLDER}'"
        if not include_missing:
            condition += " AND EXISTS (SELECT 1 FROM genome_tree t WHERE t.path = f.path)"
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
                self._stored_state()  # the state they belong to, for refreshed_elsewhere
                cur = self.conn.cursor()
                cur.row_factory = None
                rows = cur.execute(
                    "SELECT seq, old, new FROM genome_renames ORDER BY seq, rowid"
                ).fetchall()
            self._renames = RenameIndex(rows)
        return self._renames

    def _follow(self, walk: Callable[[RenameIndex | RenameLookups], T]) -> T:
        """``walk`` over the rename index when it is read (or worth reading), else over
        name-by-name look-ups, every name of them read in one state of the rename table: the
        names kept when they are enough, else a read transaction in which the table's state
        is checked and the names it lacks are read."""
        if self._renames is not None or not self._is_ready():
            return walk(self._rename_index())
        if self._rename_lookups is not None:
            try:  # every name kept: one state's answer, kept until a refresh is noticed
                return walk(self._rename_lookups.kept_only())
            except NotKept:
                pass
        with read_snapshot(self.conn):
            self._adopt_state()  # as in neighbours: nothing kept from another state
            if not self._is_ready():
                return walk(self._rename_index())
            state = self._stored_state()
            lookups = self._rename_lookups
            if lookups is None or lookups.state != state:  # refreshed by another connection
                lookups = self._rename_lookups = RenameLookups(self._rename_events, state)
            if lookups.reads >= LOOKUPS_MAX:
                return walk(self._rename_index())
            return walk(lookups)

    def _rename_events(self, column: str, name: str) -> list[tuple[int, str]]:
        """The renames whose ``column`` ("old" or "new") is ``name``: (commit number, the
        other name), in commit order."""
        return rename_events(self.conn, column, name)

    def renamed_to(self, path: str) -> str | None:
        """The name the file last renamed away from ``path`` has now, following every later
        rename; None when ``path`` was never renamed (or the chain leads back to it). A file of
        a submodule moved to another folder is followed there
        (:func:`recall.submodule_names.submodule_forward`: asked only in a repository with
        submodules, when ``path`` itself was never renamed)."""
        found = self._follow(lambda renames: renames.forward(path))
        if found is not None:
            return found
        forward = self._follow_one("forward")
        return submodule_forward(path, self.submodule_folders(), forward)

    def renamed_from(self, path: str) -> list[str]:
        """The earlier names of the file now at ``path``, most recent first."""
        return self._follow(lambda renames: renames.backward(path))
