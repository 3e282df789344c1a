"""Writing many memories in one locked batch with one sync (imports)."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Collection, Iterable, Sized
from pathlib import Path
from typing import TYPE_CHECKING

from recall.anchors.symbols import SymbolAnchor, anchors_from_column
from recall.memfiles import FileStat
from recall.model import Memory, is_valid_id
from recall.store.batch import Batch
from recall.store.opening import recovering
from recall.store.writes import StoreWrites

if TYPE_CHECKING:
    from recall.store.made_ahead import MadeAhead
    from recall.store.results import WriteResult


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

        self.finish_writes()  # an earlier batch's log copied before this one's is written
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
            batch = Batch(self, progress, expected, written, threaded=threaded)
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
        try:  # the recall cache, when the batch did not make it meanwhile
            ahead = batch.cache is not None and batch.cache.writes
            self.fill_vectors(progress, cache=not ahead, written=bool(written))
        finally:  # the log's copy and the cache go on while the caller says what was written
            self._finishing += [work for work in (batch.cache, batch.copy) if work is not None]
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
