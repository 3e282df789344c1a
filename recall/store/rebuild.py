"""Rebuilding a store's index from its files, beside the old one, then swapped in."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from recall.index import db
from recall.index.sync import SyncReport, sync
from recall.store.base import FREE_SPACE
from recall.store.writes import StoreWrites


class Reindexing(StoreWrites):
    """``tether reindex``: build the derived index again from the memory files."""

    def reindex(self, progress: Callable[[str, int, int | None], None] | None = None) -> SyncReport:
        """Rebuild the derived index from the memory files (and the vectors, with ``progress``
        hearing of each batch), carrying over the per-user tables and the code map (genome),
        which the files do not hold."""
        refused = self._unwritable() if self.exists else None
        if refused is not None:
            raise self._refusal(*refused)
        self._ensure_on_disk()
        from recall.genome import carry as genome_carry  # rebuilds only
        from recall.index import swap

        path = self.location.index_path
        self.wait_for_others()
        with self._write_waits(), self._locked():
            self.close()
            self.folder.clean_temp_files()
            swap.discard_build(path)
            # Built beside the old index, which others go on reading, then swapped in: a
            # reindex killed midway leaves the old index as it was.
            try:
                built, _ = self._open_index(swap.build_path(path))
            except db.IndexUnwritable as error:
                swap.discard_build(path)
                advice = FREE_SPACE if error.full else self._make_writable()
                raise self._refusal(f"{path}: {error}", advice) from None
            except BaseException:
                swap.discard_build(path)
                raise
            try:
                report = sync(built, self.folder, self.normalize_stored, self._sync_lock)
                # The code map comes from git, not from the memory files: carried as it is.
                code_map_left = genome_carry.carry(path, self.folder.path, built)
                saved = swap.swap_in(path, built, self.folder.path)
            except sqlite3.Error as error:
                built.close()
                swap.discard_build(path)
                if db.is_unwritable_error(error):
                    advice = FREE_SPACE if db.is_full_error(error) else self._make_writable()
                    raise self._refusal(f"{path}: {error}", advice) from None
                raise
            except BaseException:
                built.close()
                swap.discard_build(path)
                raise
            left = genome_carry.left_behind(saved, code_map_left)
            if left:
                self.notice(f"index {path} was rebuilt from the memory files{left}")
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
