"""The semantic vectors a write makes, so that recall never has to."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from recall import privacy
from recall.store.cache_ahead import CachePlace
from recall.store.reads import StoreReads

if TYPE_CHECKING:
    from recall.ranking.embedding import Embedder


class VectorFilling(StoreReads):
    """Making the vectors of memories that have none, after a write or in one."""

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
                place = self.vector_cache_place()
                vectors.load(
                    self.conn,
                    embedder,
                    place.folder,
                    dir_mode=place.dir_mode,
                    file_mode=place.file_mode,
                )
        except EmbedderFailed as error:
            self.notice(f"{error}; vectors are computed at the next write or reindex")
            return 0
        except sqlite3.Error as error:
            if not is_unwritable_error(error):
                raise
            self.notice(f"vectors not stored ({error}); recall computes them meanwhile")
            return 0
        return made

    def vector_cache_place(self) -> CachePlace:
        """Where the matrix a recall maps is cached, owner-only for a private store."""
        modes = (privacy.DIR_MODE, privacy.FILE_MODE) if self._private else (0o755, 0o644)
        return CachePlace(self.location.base / "cache", *modes)

    def batch_embedder(self) -> Embedder | None:
        """The embedder a bulk write makes its vectors with in its own transaction (and an
        import its drafts' vectors with, ahead of the write): the built-in one, which computes
        here; None when the semantic channel is off or a configured provider makes them
        (after the write, as :meth:`fill_vectors` does)."""
        from recall.ranking.embedders import embedder_for  # only when a write makes vectors
        from recall.ranking.embedding import HashEmbedder

        embedder, semantic = embedder_for(self.repo_root, self.notice)
        if not semantic:
            return None
        embedder = embedder or HashEmbedder()
        return embedder if isinstance(embedder, HashEmbedder) else None
