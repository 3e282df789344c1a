"""The matrix a first recall maps, made from the vectors a first import stored, while the
import finishes: on a thread of its own, laid out while the indexes are built again and the
files synced, written under the index state's stamp once the import has committed.

Without it, the import reads every vector it had just stored back out of the index and lays
them out after its commit, on the importing thread (a third of a second at 30,000 memories).
Only an import into a store that held nothing before takes it: the matrix must hold every
memory of the index, and then the batch's own vectors are all of them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CachePlace:
    """Where a store's recall cache is written, and with which modes."""

    folder: Path
    dir_mode: int
    file_mode: int


class CacheAhead:
    """The cache of ``stored`` (rowid, stored form of the vector), one for every memory of the
    index, ``dim`` wide, made at once on a thread of its own; written under the stamp
    :meth:`committed` gives once the index holds them, never if :meth:`abandoned` says it will
    not. A failure costs only speed: the first recall makes the cache as it would have."""

    def __init__(self, stored: list[tuple[int, bytes]], dim: int, place: CachePlace) -> None:
        """Begin laying ``stored`` out (raises RuntimeError when no thread can be had)."""
        self._decided = threading.Event()
        self._stamp: str | None = None
        self._thread = threading.Thread(
            target=self._run,
            args=(stored, dim, place),
            name="tether-vector-cache",
            daemon=True,
        )
        self._thread.start()

    def _run(self, stored: list[tuple[int, bytes]], dim: int, place: CachePlace) -> None:
        import numpy as np

        from recall.ranking.embedding import stack_bytes
        from recall.ranking.vectors import write_cache

        try:
            stored.sort()  # the index's order: by rowid
            rowids = np.fromiter((r[0] for r in stored), dtype=np.int64, count=len(stored))
            matrix = stack_bytes([r[1] for r in stored], dim)
        except (ValueError, MemoryError):
            return
        self._decided.wait()
        if self._stamp is not None:
            write_cache(
                place.folder,
                self._stamp,
                rowids,
                matrix,
                dir_mode=place.dir_mode,
                file_mode=place.file_mode,
            )

    def committed(self, stamp: str) -> None:
        """The index holds the vectors now, in the state ``stamp`` names: write the cache."""
        self._stamp = stamp
        self._decided.set()

    def abandoned(self) -> None:
        """The index will not hold them: write nothing."""
        self._decided.set()

    @property
    def writes(self) -> bool:
        """Whether the cache is being written (the batch committed with every vector)."""
        return self._stamp is not None

    def wait(self) -> None:
        """Return once the cache is written (or given up)."""
        self._thread.join()
