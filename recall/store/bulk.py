"""Writing many memories in one locked batch with one sync (imports)."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import sqlite3
from collections.abc import Callable, Collection, Iterable, Sized
from pathlib import Path
from typing import TYPE_CHECKING

from recall.anchors.symbols import SymbolAnchor, anchors_from_column
from recall.index import db, log_copy, rows
from recall.index.sync import add_to_fingerprint
from recall.memfiles import FileStat, file_sha
from recall.model import Memory, is_valid_id
from recall.store.opening import recovering
from recall.store.writes import StoreWrites

if TYPE_CHECKING:
    from recall.ranking.embedding import Embedder
    from recall.store.made_ahead import MadeAhead
    from recall.store.results import WriteResult
    from recall.write_behind import WriteBehind


BATCH_CACHE_KIB = 128 * 1024
"""Page cache (KiB, at most) of the connection while a batch is written: a first import's
index pages (about 4.5 KiB a memory) stay in memory up to about 28,000 memories instead of
being spilled to the WAL and read back mid-transaction (a third fewer writes, half a second
of kernel time on 8,000 commits); given back when the batch ends."""


class BulkImport(StoreWrites):
    """``tether import``: all of a batch written, or none of it."""

    @recovering
    def import_many(
        self,
        drafts: Iterable[tuple[Memory, str | None]],
        progress: Callable[[str, int, int | None], None] | None = None,
        *,
        expected: int | None = None,
        write_behind_from: int | None = None,
        made_ahead: MadeAhead | None = None,
        chosen: Callable[[list[WriteResult]], None] | None = None,
        taken_elsewhere: Collection[str] = (),
    ) -> list[WriteResult]:
        """Write many memories in one locked batch with one sync; dedupes within and across.

        ``drafts`` pairs each memory (from :meth:`prepare_memory`) with a wanted id, honoured
        when it is valid and free. They are taken a chunk at a time, so an iterable that
        drafts them as asked overlaps that work with the writing of the files before them;
        it must give the same drafts again if iterated again (the write is run a second time
        after a damaged index is rebuilt). ``expected`` is how many there are, when ``drafts``
        cannot say (for the progress bar). From ``write_behind_from`` drafts on, the files are
        created on a thread of their own (the same files and rows as without it); by default
        from :data:`recall.write_behind.WRITE_BEHIND_FROM`. The vectors in ``made_ahead``
        are stored as they are (those of other texts or another model are computed here).
        ``chosen`` is handed every draft's result once the last is known, before the commit
        (so a caller may begin work on the new ones meanwhile). An id in ``taken_elsewhere``
        (the other store's) is not given, as one this store holds is not: the same id in both
        stores would leave every command naming it unable to tell which is meant.
        """
        # writes only: a read (every agent hook) never needs the thread's modules
        from recall.write_behind import CHUNK, WRITE_BEHIND_FROM, interrupts_held

        self._ensure_on_disk()
        if write_behind_from is None:
            write_behind_from = WRITE_BEHIND_FROM
        if expected is None and isinstance(drafts, Sized):
            expected = len(drafts)
        results: list[WriteResult] = []
        written: list[FileStat] = []
        with self._writable():
            self.refresh()
            known = _Known()
            for row in self.conn.execute(
                "SELECT content_hash, id, status, files FROM memories "
                "ORDER BY status = 'active', created DESC"
            ):
                # active and oldest last, so they win
                known.add(row[0], row[1], row[2], tuple(json.loads(row[3])))
            taken = {r[0] for r in self.conn.execute("SELECT id FROM memories")}
            listed = os.listdir(self.folder.path)
            # an import killed midway leaves a file it was writing: the run that completes it
            # takes it away (no other writer runs while this one holds the lock)
            self.folder.clean_temp_files(listed)
            taken.update(name[:-3] for name in listed)
            taken.update(taken_elsewhere)
            threaded = expected is None or expected >= write_behind_from
            batch = _Batch(self, progress, expected, written, threaded=threaded)
            batch.made = made_ahead
            try:
                drafted = iter(drafts)
                while chunk := list(itertools.islice(drafted, CHUNK)):
                    batch.add(self._choose(chunk, known, taken, results), len(chunk))
                    if made_ahead is not None:  # used, or never to be (duplicates, other ids)
                        made_ahead.forget(chunk)
                if chosen is not None:
                    chosen(results)
                batch.commit()
            except BaseException as error:
                if batch.committed:  # every row and every file is in: nothing to take back
                    raise
                # All or nothing: a batch that could not be written and indexed whole (a full
                # disk, most likely) leaves none of its files behind.
                with interrupts_held():
                    try:
                        failed = batch.abandon(error)
                    finally:  # even when the rollback fails: the files go
                        for stat in written:
                            self._unwrite(stat.name)
                if failed is not None:  # in one thread, the file's failure would have come first
                    raise failed from None
                raise
        try:
            self.fill_vectors(progress, cache=True, written=bool(written))
        finally:
            if batch.copy is not None:
                batch.copy.wait()
        return results

    def _choose(
        self,
        drafts: list[tuple[Memory, str | None]],
        known: _Known,
        taken: set[str],
        results: list[WriteResult],
    ) -> list[Memory]:
        """The new memories of ``drafts``, each with its id; a result for every draft."""
        import secrets  # writes only: a read (every agent hook) never needs it

        from recall.store.results import WriteResult, files_missing, marks_missing

        chosen: list[Memory] = []
        for draft, wanted in drafts:
            key = draft.content_hash
            found = known.find(key, wanted, deleted=draft.status == "deleted")
            if found is not None:
                dup_id, dup_status, dup_files = found
                anchors, pinned, guard = (), False, False
                if draft.anchors or draft.pinned or draft.guard:  # rare: asked only then
                    anchors, pinned, guard = self._marks_of(dup_id, known)
                results.append(
                    WriteResult(
                        dup_id,
                        self.scope,
                        self._p(dup_id),
                        dup_id,
                        dup_status,
                        files_missing(draft.files, dup_files),
                        files_missing(_texts(draft.anchors), anchors),
                        marks_missing(draft.pinned, draft.guard, pinned, guard),
                    )
                )
                continue
            memory_id = wanted if wanted and is_valid_id(wanted) else None
            while memory_id is None or memory_id in taken:
                memory_id = secrets.token_hex(4)
            taken.add(memory_id)
            memory = draft.with_changes(id=memory_id)
            chosen.append(memory)
            if memory.anchors or memory.pinned or memory.guard:
                known.marked[memory_id] = (_texts(memory.anchors), memory.pinned, memory.guard)
            known.add(
                key, memory_id, "deleted" if memory.status == "deleted" else "active", memory.files
            )
            results.append(WriteResult(memory_id, self.scope, self._p(memory_id)))
        return chosen

    def _marks_of(self, memory_id: str, known: _Known) -> tuple[tuple[str, ...], bool, bool]:
        """The anchors (as text), pin and guard of a memory a line duplicates (of any import)."""
        if memory_id in known.marked:
            return known.marked[memory_id]
        row = self.conn.execute(
            "SELECT anchors, pinned, guard FROM memories WHERE id = ?", (memory_id,)
        ).fetchone()
        if row is None:  # this import's, with none of them
            return (), False, False
        return _texts(anchors_from_column(row[0])), bool(row[1]), bool(row[2])

    def _p(self, memory_id: str) -> Path:
        return self.folder.path / f"{memory_id}.md"


def _texts(anchors: tuple[SymbolAnchor, ...]) -> tuple[str, ...]:
    return tuple(anchor.text for anchor in anchors)


class _Known:
    """The memories an import line may turn out to be: by text, those not deleted (the
    active first, then the oldest); and the deleted ones (tombstones) by id and by text.

    A deleted memory is not what a line that is not deleted duplicates: text once deleted
    may be imported (or remembered) again as a live memory. A deleted line is a tombstone
    itself, and one the store holds already (``export --status all`` imported again) is
    known: the one with the id it asks for, else one with its text.
    """

    def __init__(self) -> None:
        """Nothing known yet."""
        self.live: dict[str, tuple[str, str, tuple[str, ...]]] = {}
        self.dead: dict[str, str] = {}  # a tombstone's id, by its text
        self.dead_ids: dict[str, tuple[str, tuple[str, ...]]] = {}  # text and files, by id
        self.marked: dict[str, tuple[tuple[str, ...], bool, bool]] = {}  # this import's, by id

    def add(self, key: str, memory_id: str, status: str, files: tuple[str, ...]) -> None:
        """Know ``memory_id`` (text ``key``): a later one of the same text takes its place."""
        if status == "deleted":
            self.dead[key] = memory_id
            self.dead_ids[memory_id] = (key, files)
        else:
            self.live[key] = (memory_id, status, files)

    def find(
        self, key: str, wanted: str | None, *, deleted: bool
    ) -> tuple[str, str, tuple[str, ...]] | None:
        """The memory (id, status, files) that a line of text ``key`` asking for the id
        ``wanted`` duplicates, if any; ``deleted``: the line is a tombstone."""
        if not deleted:
            return self.live.get(key)
        if wanted is not None and wanted in self.dead_ids and self.dead_ids[wanted][0] == key:
            return wanted, "deleted", self.dead_ids[wanted][1]
        # never a live memory: a tombstone of a text remembered again since is a memory of its
        # own (restorable until purged), whichever comes first in the file
        if key in self.dead:
            memory_id = self.dead[key]
            return memory_id, "deleted", self.dead_ids[memory_id][1]
        return None


class _Batch:
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
                left = self.made.store(conn, self.embedder, numbered)
            new = [(r, m.summary, m.details, rows.files_column(m.files)) for r, m in left]
            if new:
                vectors.store_vectors(conn, self.embedder, new)
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
        stats = self.writer.finish()
        assert len(stats) == len(self.memories)  # every file written, or finish raised
        conn = self.store.conn
        if self.dropped is None:
            self.dropped = rows.drop_indexes_for(conn, len(self.memories))
        self._land(len(self.memories))
        rows.restore_indexes(conn, self.dropped)
        rows.bump_generation(conn)
        add_to_fingerprint(conn, stats)
        if self.embedder is not None:
            from recall.ranking import vectors

            vectors.mark_complete(conn, self.embedder)
            if self.progress is not None:
                self.progress(vectors.PROGRESS_LABEL, len(self.memories), len(self.memories))
        self.store.folder.flush()  # every file durable before the rows naming it commit
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
        if pages is not None:
            self.copy = log_copy.LogCopy(log_copy.index_file(conn))
        self._cache_back()

    def _cache_back(self) -> None:
        """The connection's page cache back to its size before the batch (its pages freed)."""
        if self.cache_size is not None:
            self.store.conn.execute(f"PRAGMA cache_size = {self.cache_size}")
            self.cache_size = None

    def abandon(self, error: BaseException) -> BaseException | None:
        """After ``error``: stop the writer and roll back. Return the writer's failure to
        write a file handed over before ``error``, when it is the one to report instead:
        in one thread it would have come first."""
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
