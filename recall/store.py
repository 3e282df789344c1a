"""One scope's memories: the files as the truth, the index kept in step, every write atomic."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from recall import frontmatter, privacy
from recall.clock import now_iso
from recall.errors import BadInput, NotFound, NothingToDo, StoreUnavailable
from recall.index import db, rows
from recall.index.sync import (
    SyncReport,
    mark_racy,
    memory_from_text,
    store_fingerprint,
    sync,
)
from recall.locations import GLOBAL, Location, ensure_created
from recall.memfiles import FileStat, MemoryFolder, file_sha, writer_lock
from recall.model import SOURCES, STATUSES, Memory, is_valid_id
from recall.paths import normalize, normalize_loose
from recall.records import check_category, check_details, check_summary, render_memory

if TYPE_CHECKING:
    from recall.ranking.embedding import Embedder

Notice = Callable[[str], None]
T = TypeVar("T")


_UNWRITABLE_ATTEMPTS = 4
"""Tries to open the index for writing before serving it read-only: enough to ride out
another process closing it, few enough that a truly full disk is told within a second."""
_UNWRITABLE_PAUSE = 0.05
"""Seconds before the second try (growing linearly after it): a closing writer is gone within
milliseconds, and the pauses add up to 0.3 s, inside the second promised above."""

_EFFECTIVE_IDS = os.access in os.supports_effective_ids
"""Ask ``access`` about the effective user (the one SQLite writes as) where the OS can."""


def is_corruption(error: sqlite3.DatabaseError) -> bool:
    """Whether an SQLite error means the index file is damaged (as opposed to busy or full)."""
    text = str(error).lower()
    return type(error) is sqlite3.DatabaseError or "malformed" in text or "not a database" in text


def recovering(method: Callable[..., T]) -> Callable[..., T]:
    """Run a store method; if the index turns out to be damaged, rebuild it and run it again.

    An index that cannot be written (read-only, disk full) is reported as
    :class:`StoreUnavailable` saying what to do, not as damage.
    """

    @functools.wraps(method)
    def wrapper(self: MemoryStore, *args: object, **kwargs: object) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as error:
            unwritable = self.describe_index_error(error)
            if unwritable is not None:
                raise StoreUnavailable(unwritable) from None
            if not is_corruption(error):
                raise
            self.recover(error)
            return method(self, *args, **kwargs)

    return wrapper


_FREE_SPACE = "free some space on its device and retry"
# Hidden, and cleaned up like a killed writer's temp files (recall.memfiles).
_KEPT_PREFIX = ".tmp-kept-"
_WRITABLE_CLONE = "work in a writable clone of the repository"


def _stderr_notice(message: str) -> None:
    print(f"tether: {message}", file=sys.stderr)


@dataclass(frozen=True)
class WriteResult:
    """The outcome of a write: the memory's id, and the id it duplicated when deduped."""

    id: str
    scope: str
    path: Path
    duplicate_of: str | None = None
    duplicate_status: str | None = None
    #: Files the write named that the existing memory does not (dedupe ignores files, so the
    #: caller is told what was not recorded rather than having it dropped without a word).
    files_not_on_it: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (``duplicate_of`` only when dedupe returned an existing memory)."""
        data: dict[str, object] = {"id": self.id, "scope": self.scope, "path": str(self.path)}
        if self.duplicate_of:
            data["duplicate_of"] = self.duplicate_of
            data["duplicate_status"] = self.duplicate_status
            if self.files_not_on_it:
                data["files_not_on_it"] = list(self.files_not_on_it)
        return data


def not_on_it_note(memory_id: str, files: tuple[str, ...] | list[str], path: Path) -> str:
    """What to tell a writer whose text already exists on a memory naming fewer files."""
    them = "it" if len(files) == 1 else "them"
    return (
        f"same knowledge as {memory_id}, which does not name {', '.join(files)}; nothing "
        f"written — to tie the memory to {them} too, add {them} under `files:` in {path}"
    )


def _missing(wanted: tuple[str, ...], present: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The files of ``wanted`` that ``present`` lacks, in the order they were given."""
    have = set(present)
    return tuple(path for path in wanted if path not in have)


@dataclass(frozen=True)
class Problem:
    """A memory file that could not be loaded."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class MemoryStore:
    """The memories of one scope (project or global) and their index."""

    def __init__(self, location: Location, *, notice: Notice = _stderr_notice) -> None:
        self.location = location
        self._private = location.scope == GLOBAL  # see recall.privacy
        self._file_mode = privacy.FILE_MODE if self._private else 0o644
        self.folder = MemoryFolder(location.memories_dir, file_mode=self._file_mode)
        self.notice = notice
        self._conn: sqlite3.Connection | None = None
        self._rebuilding = False  # set by reindex, whose rebuild is asked for, not a surprise
        self._seen_dir_mtime = 0
        self._lock_depth = 0
        self._thread_lock = threading.RLock()  # one writer at a time within this process too
        self._in_memory = False
        self.read_only: str | None = None
        """Why the index cannot be written, when it cannot: the store then serves reads from
        an in-memory copy and refuses writes (see :meth:`_open_read_only`)."""
        self._read_only_advice = ""
        self._read_only_told = False
        self.last_sync: SyncReport | None = None

    # -- opening ---------------------------------------------------------------------------

    @property
    def scope(self) -> str:
        """``project`` or ``global``."""
        return self.location.scope

    @property
    def repo_root(self) -> Path | None:
        """The repository this store's paths are relative to (None for a global store alone)."""
        return self.location.repo_root

    @property
    def exists(self) -> bool:
        """Whether the store has been created on disk."""
        return self.location.memories_dir.is_dir()

    @property
    def conn(self) -> sqlite3.Connection:
        """The index, opened and synced with the files on first use, and opened again when
        another process replaced its file (a reindex, a recovery) since."""
        conn = self._conn  # once: another thread may drop it meanwhile (see _locked)
        if conn is not None and self._stale(conn):
            conn = None
        if conn is None:
            conn = self._conn = self._open()
        return conn

    def _stale(self, conn: sqlite3.Connection) -> bool:
        """Whether the open index was replaced on disk and may be let go of here: not in the
        middle of a transaction or a locked write (the lock rules out a swap; see _locked)."""
        return not self._lock_depth and not conn.in_transaction and db.replaced(conn)

    def close(self) -> None:
        """Close the index connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _open(self) -> sqlite3.Connection:
        if not self.exists:
            # Nothing on disk yet: an empty in-memory index, swapped for the real one on the
            # first write (see _ensure_on_disk).
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            db.prepare(conn)
            self._in_memory = True
            return conn
        self._in_memory = False
        path = self.location.index_path
        refused = self._unwritable()
        if refused is not None:
            return self._open_read_only(*refused)
        self.read_only = None
        for attempt in range(_UNWRITABLE_ATTEMPTS):
            try:
                conn = self._open_writable(path)
                break
            except db.IndexUnwritable as error:
                # A writer closing at this very moment can make SQLite answer "cannot open" or
                # an I/O error once; a read-only file system or a full disk answers every time.
                if attempt + 1 < _UNWRITABLE_ATTEMPTS and self._unwritable() is None:
                    time.sleep(_UNWRITABLE_PAUSE * (attempt + 1))
                    continue
                advice = _FREE_SPACE if error.full else self._make_writable()
                return self._open_read_only(f"{path}: {error}", advice)
        self._seen_dir_mtime = self._dir_mtime()
        return conn

    def _open_writable(self, path: Path) -> sqlite3.Connection:
        """Open (rebuilding if damaged) and sync the index on disk; raises
        :class:`db.IndexUnwritable` when it turns out it cannot be written."""
        missing = not path.exists()
        try:
            conn, created = self._open_index(path)
        except db.IndexUnusable as error:
            conn, created = self._rebuild_unusable(path, str(error))
        else:
            if created and not self._rebuilding and self.folder.scan():
                state = "missing" if missing else "empty"
                self.notice(f"index {path} was {state}; rebuilding it from the memory files")
        try:
            self.last_sync = sync(conn, self.folder, self.normalize_stored, self._sync_lock)
        except sqlite3.DatabaseError as error:
            conn.close()
            if db.is_read_only_error(error) or db.is_full_error(error):
                raise db.IndexUnwritable(str(error), full=db.is_full_error(error)) from None
            if not is_corruption(error):
                raise
            conn, _ = self._rebuild_unusable(path, str(error), force=True)
            self.last_sync = sync(conn, self.folder, self.normalize_stored, self._sync_lock)
        return conn

    def _open_index(self, path: Path) -> tuple[sqlite3.Connection, bool]:
        """:func:`db.open_checked`, creating a private store's index owner-only first."""
        if self._private:
            with contextlib.suppress(OSError):  # SQLite reports what it cannot open
                privacy.create_private(path)
        return db.open_checked(path)

    def _unwritable(self) -> tuple[str, str] | None:
        """Why this store's index cannot be written here and what to do, or None when it can.

        Probed with ``statvfs`` and ``access`` on the index files and the lock (never by
        opening them: closing any descriptor of a file drops every POSIX lock this process
        holds on it, SQLite's included, and another process could then remove the WAL files
        under a live connection). A read-only file, folder or mount and a missing permission
        all count, for root too.
        """
        base = self.location.base
        index = self.location.index_path
        for target in (index, Path(f"{index}-wal"), Path(f"{index}-shm"), self.location.lock_path):
            try:
                read_only_mount = bool(os.statvfs(target).f_flag & os.ST_RDONLY)
            except OSError:
                continue  # missing is fine (it gets created); anything stranger is SQLite's
            if read_only_mount:
                return f"{target} is on a read-only file system", _WRITABLE_CLONE
            if not os.access(target, os.W_OK, effective_ids=_EFFECTIVE_IDS):
                return f"{target} is not writable: permission denied", self._make_writable()
        if not os.access(base, os.W_OK):
            return f"{base} is not writable", self._make_writable()
        return None

    def _make_writable(self) -> str:
        base = self.location.base
        return f"make it writable (for example `chmod -R u+w {base}`) or work in a writable clone"

    def _open_read_only(self, reason: str, advice: str) -> sqlite3.Connection:
        """Serve reads from an in-memory copy of the index, synced with the memory files.

        Nothing is written to disk: usage, surfacings, turns and hint state live in the copy
        for as long as this store stays open. Writes are refused (see :meth:`_writable`).
        """
        self.read_only = reason
        self._read_only_advice = advice
        path = self.location.index_path
        conn, problem = db.open_snapshot(path)
        if not self._read_only_told:
            self._read_only_told = True
            self.notice(
                f"read-only store {self.location.base}: {reason}; "
                "memories are served read-only and usage is not recorded"
            )
            if problem is not None:
                self.notice(f"index {path} could not be read ({problem}); using the memory files")
        try:
            self.last_sync = sync(conn, self.folder, self.normalize_stored, self._sync_lock)
        except BaseException:
            conn.close()
            raise
        self._seen_dir_mtime = self._dir_mtime()
        return conn

    def describe_index_error(self, error: sqlite3.Error) -> str | None:
        """A user-facing message for an index write that failed for want of room or
        permission (None for any other error)."""
        path = self.location.index_path
        if db.is_read_only_error(error):
            return (
                f"the index {path} cannot be written ({error}); make {self.location.base} "
                "writable and retry"
            )
        if db.is_full_error(error):
            return (
                f"the index {path} could not be written ({error}); free some space on its "
                "device and retry"
            )
        return None

    def recover(self, error: Exception) -> None:
        """Rebuild a damaged index from the files; the next use of :attr:`conn` reopens it."""
        self.close()
        if self.read_only is not None:
            return  # the copy is rebuilt from the files on the next open; the disk is left alone
        try:
            self._rebuild_unusable(self.location.index_path, str(error), force=True)[0].close()
        except db.IndexUnwritable as failure:
            raise StoreUnavailable(
                f"the index {self.location.index_path} was damaged and cannot be rebuilt "
                f"({failure}); free some space or fix the permissions of "
                f"{self.location.base}, then retry"
            ) from None

    def _rebuild_unusable(
        self, path: Path, reason: str, *, force: bool = False
    ) -> tuple[sqlite3.Connection, bool]:
        with self._locked():
            if not force:
                try:  # another process may have rebuilt it while we waited for the lock
                    return self._open_index(path)
                except db.IndexUnusable:
                    pass
            self.notice(
                f"index {path} was unusable ({reason}); rebuilding it from the memory files"
            )
            from recall.index import keep  # rebuilds only

            kept = keep.save(path)  # the per-user tables exist nowhere else: salvage them
            db.remove_index_files(path)
            conn, created = self._open_index(path)
            keep.restore(conn, kept)
            return conn, created

    @contextlib.contextmanager
    def _locked(self, *, required: bool = True) -> Iterator[None]:
        """Hold the writers' lock (re-entrant within this store: flock is per descriptor)."""
        with self._thread_lock:
            if self._lock_depth:
                self._lock_depth += 1
                try:
                    yield
                finally:
                    self._lock_depth -= 1
                return
            with writer_lock(self.location.lock_path, required=required, mode=self._file_mode):
                self._lock_depth = 1
                # A reindex swaps the file under this lock: once it is held, the file at the
                # path stays the same, so a write goes to the index everyone else reads. The
                # old connection is dropped, not closed: a caller may still hold it.
                if self._conn is not None and db.replaced(self._conn):
                    self._conn = None
                try:
                    yield
                finally:
                    self._lock_depth = 0

    def _refusal(self, reason: str, advice: str) -> StoreUnavailable:
        what = "has no room left" if advice == _FREE_SPACE else "is read-only"
        return StoreUnavailable(
            f"the {self.scope} store {self.location.base} {what} ({reason}); nothing was "
            f"written; {advice}"
        )

    @contextlib.contextmanager
    def _writable(self) -> Iterator[None]:
        """Hold the writers' lock for a write; a read-only store refuses it, saying what to do."""
        if self._conn is None:
            self._read_only_told = True  # the refusal below says it all; no notice first
        self.conn  # noqa: B018 - opening the index finds out whether it can be written
        if self.read_only is not None:
            raise self._refusal(self.read_only, self._read_only_advice)
        with self._locked():
            yield

    def require_writable(self) -> None:
        """Refuse, saying what to do, when this store's index cannot be written; for commands
        that write the index by other means (the genome's ``tether index``)."""
        self.conn  # noqa: B018 - opening the index finds out whether it can be written
        if self.read_only is not None:
            raise self._refusal(self.read_only, self._read_only_advice)

    @recovering
    def write_per_user(self, change: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``change`` on the index, for a change a person asked for to this user's own
        tables (a memory brought back from disuse, a cleanup decision or pass); return what it
        returns.

        Refused like any other write when the store is read-only or out of room: there the
        index is an in-memory copy, and a change made only to the copy would be reported done
        and then lost. Counting while reading (surfacings, turns) does not come here; on a
        read-only store it stays in the copy, so that reads keep working (see recall.policy.usage).
        """
        if not self.exists:
            raise NotFound(f"no {self.scope} store yet at {self.location.base}")
        with self._writable():
            return change(self.conn)

    def refresh(self) -> SyncReport:
        """Pick up memory files changed on disk since the index was last synced."""
        self.last_sync = sync(self.conn, self.folder, self.normalize_stored, self._sync_lock)
        self._seen_dir_mtime = self._dir_mtime()
        return self.last_sync

    def _dir_mtime(self) -> int:
        try:
            return os.stat(self.folder.path).st_mtime_ns
        except OSError:
            return 0

    def _refresh_if_folder_changed(self) -> None:
        """Re-sync when files were added, removed or renamed since this process last looked.

        One stat of the folder; in-place edits of existing files wait for the next open.
        """
        if self._dir_mtime() != self._seen_dir_mtime:
            self.refresh()

    @contextlib.contextmanager
    def _sync_lock(self) -> Iterator[None]:
        """The writer lock for a sync; a read-only store (nobody can write) syncs without it."""
        with self._locked(required=False):
            yield

    # -- paths -----------------------------------------------------------------------------

    def normalize_stored(self, raw: str) -> str:
        """Normalize a path as written in a memory file (relative to the repository root)."""
        if self.repo_root is None or self.scope == GLOBAL:
            return normalize_loose(raw, label="file")
        return normalize(raw, self.repo_root, label="file")

    def normalize_input(self, raw: str, cwd: Path) -> str:
        """Normalize a path a user typed (relative to ``cwd``) to the stored form."""
        if self.repo_root is None:
            return normalize_loose(raw, label="--file")
        return normalize(raw, self.repo_root, cwd, label="--file")

    # -- reading ---------------------------------------------------------------------------

    @recovering
    def get(self, ref: str) -> Memory:
        """Find a memory by id, or by a unique id prefix of at least 4 characters."""
        memory = self.find(ref)
        if memory is None:
            raise NotFound(f"no memory {ref!r} in the {self.scope} store; `tether list` shows ids")
        return memory

    @recovering
    def find(self, ref: str) -> Memory | None:
        """Like :meth:`get` but returns None when absent; ambiguous prefixes are bad input."""
        ref = ref.strip().lower()
        row = self.conn.execute("SELECT * FROM memories WHERE id = ?", (ref,)).fetchone()
        if row is not None:
            return rows.memory_from_row(row)
        if len(ref) < 4 or not all(c in "0123456789abcdef" for c in ref):
            return None
        found = self.conn.execute(
            "SELECT * FROM memories WHERE id LIKE ? LIMIT 2", (ref + "%",)
        ).fetchall()
        if len(found) > 1:
            raise BadInput(f"id prefix {ref!r} matches several memories; give more digits")
        return rows.memory_from_row(found[0]) if found else None

    @recovering
    def file_name_of(self, memory_id: str) -> str:
        """The file name holding a memory."""
        row = self.conn.execute("SELECT name FROM memories WHERE id = ?", (memory_id,)).fetchone()
        if row is None:
            raise NotFound(f"no memory {memory_id!r} in the {self.scope} store")
        return row[0]

    def path_of(self, memory_id: str) -> Path:
        """The file path holding a memory."""
        return self.folder.path / self.file_name_of(memory_id)

    @recovering
    def list(
        self,
        *,
        file: str | None = None,
        category: str | None = None,
        status: str | None = "active",
    ) -> list[Memory]:
        """Memories filtered by file, category and status (``None`` or ``all``: any status)."""
        clauses: list[str] = []
        params: list[object] = []
        if status and status != "all":
            if status not in STATUSES:
                raise BadInput(f"unknown status {status!r}; use one of {', '.join(STATUSES)}, all")
            clauses.append("m.status = ?")
            params.append(status)
        if category:
            check_category(category)
            clauses.append("m.category = ?")
            params.append(category)
        if file:
            folder = file.rstrip("/") + "/"
            clauses.append(
                "m.rowid IN (SELECT memory_rowid FROM memory_files "
                "WHERE path = ? OR substr(path, 1, ?) = ?)"
            )
            params.extend([file, len(folder), folder])
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        query = f"SELECT * FROM memories m {where} ORDER BY m.created DESC, m.id"
        return [rows.memory_from_row(r) for r in self.conn.execute(query, params)]

    @recovering
    def count(self) -> int:
        """How many memories the index holds (any status)."""
        return self.conn.execute("SELECT count(*) FROM memories").fetchone()[0]

    @recovering
    def problems(self) -> list[Problem]:
        """Memory files that could not be loaded, each with its path and line."""
        return [
            Problem(self.folder.path / r["name"], r["line"], r["message"])
            for r in self.conn.execute("SELECT name, line, message FROM problems ORDER BY name")
        ]

    # -- writing ---------------------------------------------------------------------------

    def new_id(self) -> str:
        """An id no memory of this store has and no file of its folder is named after."""
        import secrets  # writes only: a read (every agent hook) never needs it

        while True:
            candidate = secrets.token_hex(4)
            taken = self.conn.execute("SELECT 1 FROM memories WHERE id = ?", (candidate,))
            if taken.fetchone() is None and not (self.folder.path / f"{candidate}.md").exists():
                return candidate

    def _duplicate(self, content_hash: str) -> sqlite3.Row | None:
        return self.conn.execute(
            "SELECT id, status, files FROM memories WHERE content_hash = ? "
            "AND status != 'deleted' "
            "ORDER BY status = 'active' DESC, created LIMIT 1",
            (content_hash,),
        ).fetchone()

    def _index_written(self, memory: Memory, stat: FileStat, text: str) -> None:
        """Index a file this process just wrote, adjusting the folder fingerprint to match."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            rows.delete_by_name(self.conn, stat.name)
            rows.insert_many(self.conn, [(memory, stat.name, stat, file_sha(text.encode()))])
            # A file just written may be edited again within its mtime tick: re-read it once.
            mark_racy(self.conn, [stat])
            store_fingerprint(self.conn, None)
            self.conn.execute("COMMIT")
        except BaseException:
            db.rollback(self.conn)
            raise

    def _unwrite(self, name: str) -> None:
        """Remove a new file whose indexing failed, so a failed write leaves nothing behind
        (best effort: a sync reconciles the index with whatever is left)."""
        with contextlib.suppress(OSError):
            os.unlink(self.folder.file(name))

    @contextlib.contextmanager
    def _rewriting(self, name: str) -> Iterator[None]:
        """Rewrite a memory file inside the block, or, if the block fails, put the old file
        back as it was (same bytes, same mtime, so the index row still matches it).

        The old file is kept through a hard link, which takes no room: on a full disk,
        where the failure most likely came from, writing the old text back could fail too.
        Where hard links are not supported the file is left as rewritten, and the next
        sync indexes it.
        """
        import secrets  # writes only: a read (every agent hook) never needs it

        target = self.folder.file(name)
        kept = self.folder.path / f"{_KEPT_PREFIX}{secrets.token_hex(6)}-{name}"
        try:
            os.link(target, kept)
        except OSError:
            kept = None
        try:
            yield
        except BaseException:
            if kept is not None:
                with contextlib.suppress(OSError):
                    os.replace(kept, target)
            raise
        if kept is not None:
            with contextlib.suppress(OSError):
                os.unlink(kept)

    def prepare_memory(
        self,
        *,
        summary: str,
        category: str,
        files: list[str],
        details: str | None = None,
        pinned: bool = False,
        anchor: str | None = None,
        author: str = "",
        source: str = "user",
        created: str | None = None,
        supersedes: str | None = None,
        allow_secret: bool = False,
    ) -> Memory:
        """Validate user input into a memory with no id yet (paths must be normalized already).

        Text shaped like a credential is refused unless ``allow_secret`` says it is wanted.
        """
        if anchor is not None and (not anchor.strip() or "\n" in anchor or "\r" in anchor):
            raise BadInput("--anchor must be a symbol name or a line range on one line")
        if source not in SOURCES:
            raise BadInput(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
        for label, value in (("--author", author), ("--anchor", anchor or "")):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise BadInput(f"{label} is not valid UTF-8 text") from None
        if not allow_secret:
            from recall import secrets_scan  # its patterns are compiled for writes only

            refused = secrets_scan.refusal(
                {"summary": summary, "details": details, "anchor": anchor}
            )
            if refused:
                raise BadInput(refused)
        return Memory(
            id="",
            category=check_category(category),
            summary=check_summary(summary),
            details=check_details(details),
            files=tuple(dict.fromkeys(files)),
            anchor=anchor,
            pinned=pinned,
            supersedes=supersedes,
            created=created or now_iso(),
            author=author,
            source=source,
        )

    def _ensure_on_disk(self) -> None:
        """Create the store's folders, and trade an in-memory index for the real one."""
        try:
            ensure_created(self.location)
        except OSError as error:
            raise StoreUnavailable(
                f"could not create the {self.scope} store {self.location.base} "
                f"({error.strerror or error}); check the permissions of its parent folder"
            ) from None
        if self._in_memory:
            self.close()

    @recovering
    def remember(
        self, draft: Memory, *, memory_id: str | None = None, vectors: bool = True
    ) -> WriteResult:
        """Write a new memory (``draft`` from :meth:`prepare_memory`); dedupe by content hash.

        Its semantic vector is made too, unless ``vectors`` is False (a caller with more to
        write first, which makes them after: :meth:`fill_vectors`)."""
        self._ensure_on_disk()
        with self._writable():
            # Writers index what they write under this lock, so the index is current for
            # dedupe; files added by hand since this process looked are picked up first.
            self._refresh_if_folder_changed()
            dup = self._duplicate(draft.content_hash)
            if dup is not None:
                return WriteResult(
                    dup["id"],
                    self.scope,
                    self.path_of(dup["id"]),
                    dup["id"],
                    dup["status"],
                    _missing(draft.files, json.loads(dup["files"])),
                )
            memory = draft.with_changes(id=self._pick_id(memory_id))
            text = render_memory(memory)
            stat = self._write_new(memory.id, text)
            try:
                self._index_written(memory, stat, text)
            except BaseException:
                self._unwrite(stat.name)
                raise
            self._seen_dir_mtime = self._dir_mtime()
        if vectors:
            self.fill_vectors()
        return WriteResult(memory.id, self.scope, self.folder.path / stat.name)

    def _pick_id(self, wanted: str | None) -> str:
        if wanted and is_valid_id(wanted):
            row = self.conn.execute("SELECT 1 FROM memories WHERE id = ?", (wanted,)).fetchone()
            if row is None and not (self.folder.path / f"{wanted}.md").exists():
                return wanted
        return self.new_id()

    def _write_new(self, memory_id: str, text: str, *, durable: bool = True) -> FileStat:
        try:
            return self.folder.write(f"{memory_id}.md", text, exclusive=True, durable=durable)
        except FileExistsError:
            raise StoreUnavailable(
                f"{self.folder.path / (memory_id + '.md')} appeared while writing; retry"
            ) from None

    @recovering
    def update_fields(self, memory_id: str, changes: dict[str, object]) -> Memory:
        """Rewrite some front-matter keys of a memory file (body untouched) and re-index it."""
        with self._writable():
            name = self.file_name_of(memory_id)
            path = self.folder.path / name
            try:
                text = self.folder.read_bytes(name).decode("utf-8")
            except FileNotFoundError:
                raise NotFound(f"{path} disappeared; run `tether doctor`") from None
            new_text = frontmatter.update(text, path, changes)
            with self._rewriting(name):
                stat = self.folder.write(name, new_text, exclusive=False)
                memory = memory_from_text(new_text, path, stat, self.normalize_stored)
                self._index_written(memory, stat, new_text)
        return memory

    @recovering
    def set_pinned(self, ref: str, pinned: bool) -> Memory:
        """Pin or unpin a memory; NothingToDo when it already is."""
        memory = self.get(ref)
        if memory.pinned == pinned:
            raise NothingToDo(f"memory {memory.id} is already {'pinned' if pinned else 'unpinned'}")
        return self.update_fields(memory.id, {"pinned": pinned})

    @recovering
    def set_status(self, ref: str, status: str, *, allowed_from: tuple[str, ...]) -> Memory:
        """Move a memory to ``status`` if it is currently in one of ``allowed_from``."""
        memory = self.get(ref)
        if memory.status == status:
            raise NothingToDo(f"memory {memory.id} is already {status}")
        if memory.status not in allowed_from:
            raise BadInput(
                f"memory {memory.id} is {memory.status}; only {'/'.join(allowed_from)} "
                f"memories can become {status}"
            )
        changes: dict[str, object] = {"status": status}
        if status == "active" and memory.superseded_by:
            changes["superseded_by"] = frontmatter.REMOVE
        return self.update_fields(memory.id, changes)

    @recovering
    def supersede(self, old_ref: str, draft: Memory) -> tuple[WriteResult, Memory]:
        """Write ``draft`` as the replacement of an active memory and link the two both ways."""
        old = self.get(old_ref)
        if old.status != "active":
            raise BadInput(
                f"memory {old.id} is {old.status}; only active memories can be superseded"
            )
        draft = draft.with_changes(supersedes=old.id)
        result = self.remember(draft, vectors=False)  # made once both files are written
        if result.duplicate_of:
            if result.duplicate_of == old.id:
                raise BadInput(f"the new text is the same as memory {old.id}; nothing to supersede")
            raise BadInput(
                f"the new text duplicates memory {result.duplicate_of}; supersede with that one "
                f"(`tether supersede {old.id}` cannot link an existing memory)"
            )
        try:
            updated = self.update_fields(
                old.id, {"status": "superseded", "superseded_by": result.id}
            )
        except (StoreUnavailable, sqlite3.Error):
            # Half a supersede (a successor the old memory does not point to) is worse than
            # none: take the new memory back out before reporting the failure.
            with self._locked(), contextlib.suppress(sqlite3.Error):
                self._unwrite(result.path.name)
                self.refresh()
            raise
        self.fill_vectors()
        return result, updated

    @recovering
    def purge(self, *, source: str | None = None) -> list[str]:
        """Delete the files of tombstoned memories (or of every memory from ``source``)."""
        with self._writable():
            self.refresh()
            if source:
                found = self.conn.execute(
                    "SELECT id, name FROM memories WHERE source = ?", (source,)
                ).fetchall()
            else:
                found = self.conn.execute(
                    "SELECT id, name FROM memories WHERE status = 'deleted'"
                ).fetchall()
            for row in found:
                self.folder.remove(row["name"])
            self.refresh()
        return [row["id"] for row in found]

    def reindex(self, progress: Callable[[str, int, int | None], None] | None = None) -> SyncReport:
        """Throw the derived index away and rebuild it from the files (and the vectors, with
        ``progress`` hearing of each batch)."""
        refused = self._unwritable() if self.exists else None
        if refused is not None:
            raise self._refusal(*refused)
        self._ensure_on_disk()
        from recall.index import swap  # rebuilds only

        path = self.location.index_path
        with self._locked():
            self.close()
            self.folder.clean_temp_files()
            swap.discard_build(path)
            # Built beside the old index, which others go on reading, then swapped in: a
            # reindex killed midway leaves the old index as it was.
            try:
                built, _ = self._open_index(swap.build_path(path))
            except db.IndexUnwritable as error:
                swap.discard_build(path)
                advice = _FREE_SPACE if error.full else self._make_writable()
                raise self._refusal(f"{path}: {error}", advice) from None
            except BaseException:
                swap.discard_build(path)
                raise
            try:
                report = sync(built, self.folder, self.normalize_stored, self._sync_lock)
                swap.swap_in(path, built)
            except sqlite3.Error as error:
                built.close()
                swap.discard_build(path)
                if db.is_unwritable_error(error):
                    advice = _FREE_SPACE if db.is_full_error(error) else self._make_writable()
                    raise self._refusal(f"{path}: {error}", advice) from None
                raise
            except BaseException:
                built.close()
                swap.discard_build(path)
                raise
            self._rebuilding = True
            try:
                self._conn = self._open()
            finally:
                self._rebuilding = False
            if self.read_only is not None:  # the new index could not be written after all
                raise self._refusal(self.read_only, self._read_only_advice)
            self.last_sync = report
        assert self.last_sync is not None
        report = self.last_sync
        self.fill_vectors(progress, cache=True)
        return report

    def fill_vectors(
        self,
        progress: Callable[[str, int, int | None], None] | None = None,
        *,
        cache: bool = False,
        written: bool = False,
    ) -> int:
        """Compute the semantic vectors of memories that have none from the configured embedder
        (in batches), so that recall never has to; return how many. With ``cache``, the
        matrix a recall maps is written too (after a bulk write: when vectors were made here,
        or ``written`` says the write stored some with its rows). A vector table from another
        model is rebuilt here. A failure costs only speed: recall computes what is missing.
        """
        if not self.exists or self.read_only is not None:
            return 0
        from recall.ranking.embedders import embedder_for  # only when a write makes vectors

        embedder, semantic = embedder_for(self.repo_root, self.notice)
        if not semantic:
            return 0
        from recall.errors import EmbedderFailed
        from recall.index.db import is_unwritable_error
        from recall.ranking import vectors
        from recall.ranking.embedding import HashEmbedder

        embedder = embedder or HashEmbedder()
        try:
            made = vectors.backfill(self.conn, embedder, progress)
            if cache and (made or written):
                folder = self.location.base / "cache"
                modes = (privacy.DIR_MODE, privacy.FILE_MODE) if self._private else (0o755, 0o644)
                vectors.load(self.conn, embedder, folder, dir_mode=modes[0], file_mode=modes[1])
        except EmbedderFailed as error:
            self.notice(f"{error}; vectors are computed at the next write or reindex")
            return 0
        except sqlite3.Error as error:
            if not is_unwritable_error(error):
                raise
            self.notice(f"vectors not stored ({error}); recall computes them meanwhile")
            return 0
        return made

    # -- bulk ------------------------------------------------------------------------------

    @recovering
    def import_many(
        self,
        drafts: list[tuple[Memory, str | None]],
        progress: Callable[[str, int, int | None], None] | None = None,
    ) -> list[WriteResult]:
        """Write many memories in one locked batch with one sync; dedupes within and across.

        ``drafts`` pairs each memory (from :meth:`prepare_memory`) with a wanted id, honoured
        when it is valid and free.
        """
        self._ensure_on_disk()
        results: list[WriteResult] = []
        pending: list[tuple[Memory, FileStat, str]] = []
        with self._writable():
            self.refresh()
            known: dict[str, tuple[str, str, tuple[str, ...]]] = {}
            for row in self.conn.execute(
                "SELECT content_hash, id, status, files FROM memories WHERE status != 'deleted' "
                "ORDER BY status = 'active', created DESC"
            ):
                # active and oldest last, so they win
                known[row[0]] = (row[1], row[2], tuple(json.loads(row[3])))
            taken = {r[0] for r in self.conn.execute("SELECT id FROM memories")}
            taken.update(name[:-3] for name in os.listdir(self.folder.path))
            try:
                self._write_batch(drafts, known, taken, pending, results, progress)
            except BaseException:
                # All or nothing: a batch that could not be written and indexed whole (a full
                # disk, most likely) leaves none of its files behind.
                for _memory, stat, _text in pending:
                    self._unwrite(stat.name)
                raise
        self.fill_vectors(progress, cache=True, written=bool(pending))
        return results

    def _write_batch(
        self,
        drafts: list[tuple[Memory, str | None]],
        known: dict[str, tuple[str, str, tuple[str, ...]]],
        taken: set[str],
        pending: list[tuple[Memory, FileStat, str]],
        results: list[WriteResult],
        progress: Callable[[str, int, int | None], None] | None,
    ) -> None:
        """The body of :meth:`import_many`: write the files, then index them in one go."""
        import secrets  # writes only: a read (every agent hook) never needs it

        chosen: list[Memory] = []
        for draft, wanted in drafts:
            key = draft.content_hash
            if key in known:
                dup_id, dup_status, dup_files = known[key]
                results.append(
                    WriteResult(
                        dup_id,
                        self.scope,
                        self._p(dup_id),
                        dup_id,
                        dup_status,
                        _missing(draft.files, dup_files),
                    )
                )
                continue
            memory_id = wanted if wanted and is_valid_id(wanted) else None
            while memory_id is None or memory_id in taken:
                memory_id = secrets.token_hex(4)
            taken.add(memory_id)
            memory = draft.with_changes(id=memory_id)
            chosen.append(memory)
            known[key] = (memory_id, "active", memory.files)
            results.append(WriteResult(memory_id, self.scope, self._p(memory_id)))
        texts: list[str] = []

        def rendered() -> Iterator[tuple[str, str]]:
            for done, memory in enumerate(chosen):
                if progress is not None and done % 500 == 0:
                    progress("writing memory files", done, len(chosen))
                texts.append(render_memory(memory))
                yield f"{memory.id}.md", texts[-1]

        # The names were checked free under the writer lock, so a plain rename is safe.
        for memory, stat in zip(chosen, self.folder.write_batch(rendered()), strict=True):
            pending.append((memory, stat, texts[len(pending)]))
        if progress is not None:
            progress("writing memory files", len(chosen), len(chosen))
        if not pending:
            return
        self.folder.flush()
        embedder = self._local_embedder()
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            rowids = rows.insert_many(
                self.conn, ((m, s.name, s, file_sha(t.encode())) for m, s, t in pending)
            )
            if embedder is not None:  # the vectors in the same transaction as the rows
                from recall.ranking import vectors

                new = [
                    (rowid, m.summary, m.details, rows.files_column(m.files))
                    for rowid, (m, _s, _t) in zip(rowids, pending, strict=True)
                ]
                vectors.store_new(self.conn, embedder, new, progress)
            self.conn.execute("COMMIT")
        except BaseException:
            db.rollback(self.conn)
            raise

    def _local_embedder(self) -> Embedder | None:
        """The embedder a bulk write makes its vectors with in its own transaction: the
        built-in one, which computes here; None when the semantic channel is off or a
        configured provider makes them (after the write, as :meth:`fill_vectors` does)."""
        from recall.ranking.embedders import embedder_for  # only when a write makes vectors
        from recall.ranking.embedding import HashEmbedder

        embedder, semantic = embedder_for(self.repo_root, self.notice)
        if not semantic:
            return None
        embedder = embedder or HashEmbedder()
        return embedder if isinstance(embedder, HashEmbedder) else None

    def _p(self, memory_id: str) -> Path:
        return self.folder.path / f"{memory_id}.md"
