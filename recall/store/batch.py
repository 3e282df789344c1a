"""One bulk write's new memories, a chunk at a time: rendered, their files handed to the
writer, their texts, vectors and rows indexed in one transaction, and at the end one sync and
the commit that shows them all at once (:meth:`recall.store.bulk.BulkImport.import_many`)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from recall.fs_sync import SyncAhead
from recall.index import db, log_copy, rows
from recall.index.sync import add_to_fingerprint
from recall.memfiles import FileStat, file_sha
from recall.model import Memory
from recall.store.cache_ahead import CacheAhead

if TYPE_CHECKING:
    from recall.ranking.embedding import Embedder
    from recall.store.bulk import BulkImport
    from recall.store.made_ahead import MadeAhead
    from recall.write_behind import WriteBehind


BATCH_CACHE_KIB = 128 * 1024
"""Page cache (KiB, at most) of the connection while a batch is written: a first import's
index pages (about 4.5 KiB a memory) stay in memory up to about 28,000 memories instead of
being spilled to the WAL and read back mid-transaction (a third fewer writes, half a second
of kernel time on 8,000 commits); given back when the batch ends."""


class Batch:
    """The new memories of one :meth:`BulkImport.import_many`, a chunk at a time: each chunk
    rendered, its files handed to the writer, its texts and vectors indexed, and the rows of
    the files written by then; at the end, the last files and their rows, one sync, and the
    commit that shows them all at once."""

    def __init__(
        self,
        store: BulkImport,
        progress: Callable[[str, int, int | None], None] | None,
        expected: int | None,
        written: list[FileStat],
        *,
        threaded: bool,
    ) -> None:
        """A batch of ``store`` (locked by the caller); the files written go to ``written``."""
        self.store = store
        self.progress = progress
        self.expected = expected
        self.written = written
        self.threaded = threaded
        self.seen = 0  # drafts taken so far, new or not
        self.memories: list[Memory] = []
        # each new memory's row but its file's name and stat, and its file's hash: made while
        # the files are written, so that only those are left for after the last
        self.fields: list[tuple[object, ...]] = []
        self.shas: list[str] = []
        self.landed = 0  # memories whose rows are in: the first ones whose files are written
        # the indexes dropped until the last rows are in; None: not decided (the size unknown)
        self.dropped: list[tuple[str, str]] | None = None
        self.writer: WriteBehind | None = None
        self.first = 0
        self.embedder: Embedder | None = None
        self.made: MadeAhead | None = None
        self.cache_size: int | None = None  # the connection's own, while the batch has its own
        self.committed = False
        self.copy: log_copy.LogCopy | None = None  # the committed log, copied into the index
        # the vectors stored, while they are every vector of the index (a first import)
        self.stored: list[tuple[int, bytes]] | None = None
        self.cache: CacheAhead | None = None  # the recall cache of them, made meanwhile

    def _start(self) -> WriteBehind:
        """The writer and the transaction, at the first new memory (none: nothing to sync)."""
        from recall.write_behind import WriteBehind

        # the embedder the drafts' vectors were made with, when they were (asked for once)
        made = self.made
        self.embedder = made.embedder if made is not None else self.store.batch_embedder()
        self.writer = WriteBehind(self.store.folder, threaded=self.threaded, written=self.written)
        conn = self.store.conn
        self.cache_size = int(conn.execute("PRAGMA cache_size").fetchone()[0])
        conn.execute(f"PRAGMA cache_size = {-BATCH_CACHE_KIB}")
        conn.execute("BEGIN IMMEDIATE")
        self.first = rows.first_rowid(self.store.conn)
        if self.embedder is not None and self.threaded and _holds_nothing(conn):
            self.stored = []
        if self.expected is not None:
            self.dropped = rows.drop_indexes_for(conn, self.expected)
        return self.writer

    def add(self, part: list[Memory], seen: int) -> None:
        """Write and index the new memories ``part`` of the next ``seen`` drafts."""
        if self.progress is not None:
            self.progress("writing memory files", self.seen, self.expected)
        self.seen += seen
        if not part:
            return
        from recall.records import render_memory

        writer = self.writer or self._start()
        conn = self.store.conn
        made = self.made
        rendered = [
            (made is not None and made.text_of(memory)) or render_memory(memory) for memory in part
        ]
        # The names were checked free under the writer lock, so a plain rename is safe.
        writer.put([(f"{m.id}.md", t) for m, t in zip(part, rendered, strict=True)])
        numbered = list(enumerate(part, start=self.first + len(self.memories)))
        self.memories.extend(part)
        rows.insert_texts(conn, numbered)
        self.fields.extend(map(rows.record_fields, part))
        self.shas.extend(file_sha(text.encode()) for text in rendered)
        if self.embedder is not None:  # the vectors in the same transaction as the rows
            from recall.ranking import vectors

            left = numbered
            if self.made is not None:
                left = self.made.store(conn, self.embedder, numbered, self.stored)
            new = [(r, m.summary, m.details, rows.files_column(m.files)) for r, m in left]
            if new:
                computed = vectors.store_vectors(conn, self.embedder, new)
                if self.stored is not None:
                    self.stored.extend(computed)
        if self.dropped is not None:  # the rows of the files written so far, while they go on
            self._land(len(self.written))

    def _land(self, upto: int) -> None:
        """Insert the rows of the memories up to ``upto``, whose files are written (the
        writer adds each file's stat to :attr:`written` once it is whole)."""
        landed = range(self.landed, upto)
        at, memories, fields, shas = self.first, self.memories, self.fields, self.shas
        rows.add_rows(
            self.store.conn,
            [
                (at + n, memories[n].id, stat.name, *fields[n], stat.mtime_ns, stat.size, shas[n])
                for n, stat in zip(landed, self.written[self.landed : upto], strict=True)
            ],
            rows.file_rows((at + n, memories[n]) for n in landed),
        )
        self.landed = upto

    def commit(self) -> None:
        """Wait for the last file, add the rows naming them, sync, commit."""
        if self.progress is not None:
            self.progress("writing memory files", self.seen, self.seen)
        if self.writer is None:
            return
        self._cache_ahead()
        stats = self.writer.finish()
        assert len(stats) == len(self.memories)  # every file written, or finish raised
        # every file is written: their sync runs while their rows go in and the indexes are
        # built again, and is waited for before the commit
        syncing = SyncAhead(self.store.folder.flush) if self.threaded else None
        conn = self.store.conn
        if self.dropped is None:
            self.dropped = rows.drop_indexes_for(conn, len(self.memories))
        self._land(len(self.memories))
        rows.restore_indexes(conn, self.dropped)
        rows.bump_generation(conn)
        add_to_fingerprint(conn, stats)
        stamp = None
        if self.embedder is not None:
            from recall.ranking import vectors
            from recall.ranking.vector_cache import cache_stamp, vectors_complete

            vectors.mark_complete(conn, self.embedder)
            if self.progress is not None:
                self.progress(vectors.PROGRESS_LABEL, len(self.memories), len(self.memories))
            if self.cache is not None and vectors_complete(conn, self.embedder.name):
                # the state the commit makes, read in its own transaction (no writer between)
                stamp = cache_stamp(conn, self.embedder.name, self.embedder.dim)
        # every file durable before the rows naming it commit
        if syncing is None:
            self.store.folder.flush()
        else:
            syncing.wait()
        from recall.write_behind import interrupts_held

        # Python raises a Ctrl-C that came during the COMMIT once it has returned, as if it had
        # not been made: the clean-up would then delete the files of committed rows. Held, the
        # import ends as it would have a moment later.
        # A large batch's log is copied into the index on a thread of its own while the
        # recall cache is built (log_copy), not at the end of the COMMIT on this one.
        pages = log_copy.held_back(conn) if self.threaded else None
        try:
            with interrupts_held():
                conn.execute("COMMIT")
                self.committed = True
        finally:
            if pages is not None:
                log_copy.given_back(conn, pages)
        if self.cache is not None:
            if stamp is None:
                self.cache.abandoned()
            else:
                self.cache.committed(stamp)
        if pages is not None:
            self.copy = log_copy.LogCopy(log_copy.index_file(conn))
        self._cache_back()

    def _cache_ahead(self) -> None:
        """Begin the recall cache of the vectors stored, when they are all the index holds."""
        if self.embedder is None or self.stored is None:
            return
        if len(self.stored) != len(self.memories):  # not one each: made after, as before
            return
        try:
            self.cache = CacheAhead(self.stored, self.embedder.dim, self.store.vector_cache_place())
        except RuntimeError:  # no thread to be had: made after the commit, as before
            self.cache = None

    def _cache_back(self) -> None:
        """The connection's page cache back to its size before the batch (its pages freed)."""
        if self.cache_size is not None:
            self.store.conn.execute(f"PRAGMA cache_size = {self.cache_size}")
            self.cache_size = None

    def abandon(self, error: BaseException) -> BaseException | None:
        """After ``error``: stop the writer and roll back. Return the writer's failure to
        write a file handed over before ``error``, when it is the one to report instead:
        in one thread it would have come first."""
        if self.cache is not None:
            self.cache.abandoned()
        if self.writer is None:
            return None
        try:
            failed = self.writer.abandon(error)
        finally:
            db.rollback(self.store.conn)
            with contextlib.suppress(sqlite3.Error):
                self._cache_back()
        if failed is not None and failed is not error and isinstance(error, Exception):
            return failed
        return None


def _holds_nothing(conn: sqlite3.Connection) -> bool:
    """Whether the index holds no memory and no vector (a first import's)."""
    row = conn.execute(
        "SELECT NOT EXISTS(SELECT 1 FROM memories) AND NOT EXISTS(SELECT 1 FROM vectors)"
    ).fetchone()
    return bool(row[0])
