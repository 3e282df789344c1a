"""Vectors of a bulk write's memories made before the write (by the process that drafted
them), so that the write stores them instead of computing them again."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from recall.index.rows import files_column
from recall.model import Memory

if TYPE_CHECKING:
    from recall.ranking.embedding import Embedder


def vector_text(memory: Memory) -> str:
    """What ``memory``'s vector is computed from (as :func:`recall.ranking.vectors.memory_text`
    makes it from the stored columns)."""
    return f"{memory.summary}\n{memory.details}\n{files_column(memory.files)}"


@dataclass
class MadeVectors:
    """The vectors ``embedder`` made, by the text they were made from (a text's vector does
    not depend on the memory it belongs to, nor on the texts embedded with it)."""

    embedder: Embedder | None
    by_text: dict[str, bytes] = field(default_factory=dict)

    def add(self, memories: Sequence[Memory], blobs: Sequence[bytes]) -> None:
        """Keep the vectors ``blobs`` (stored form) of ``memories``, one each."""
        for memory, blob in zip(memories, blobs, strict=True):
            self.by_text[vector_text(memory)] = blob

    def store(
        self, conn: sqlite3.Connection, embedder: Embedder, new: Sequence[tuple[int, Memory]]
    ) -> list[tuple[int, Memory]]:
        """Store the vectors made for the memories ``new`` (rowid, memory) when ``embedder``
        is the one that made them, in the caller's transaction; return those left without."""
        if self.embedder is None or self.embedder.name != embedder.name:
            return list(new)
        found: list[tuple[int, str, bytes]] = []
        left: list[tuple[int, Memory]] = []
        for rowid, memory in new:
            blob = self.by_text.get(vector_text(memory))
            if blob is None:
                left.append((rowid, memory))
            else:
                found.append((rowid, embedder.name, blob))
        # the statement of recall.ranking.vectors.store_vectors, with the vectors made
        conn.executemany(
            "INSERT OR REPLACE INTO vectors(memory_rowid, model, vec) VALUES(?, ?, ?)", found
        )
        return left
