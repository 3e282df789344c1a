"""Writing many memories in one locked batch with one sync (imports)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from recall.index import db, rows
from recall.memfiles import FileStat, file_sha
from recall.model import Memory, is_valid_id
from recall.store.opening import recovering
from recall.store.results import WriteResult, files_missing
from recall.store.writes import StoreWrites


class BulkImport(StoreWrites):
    """``tether import``: all of a batch written, or none of it."""

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
                        files_missing(draft.files, dup_files),
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

        from recall.records import render_memory

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

    def _p(self, memory_id: str) -> Path:
        return self.folder.path / f"{memory_id}.md"
