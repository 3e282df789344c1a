"""What a bulk write's memories need that can be made before the write, by the process that
drafted them: their vectors and their files' text. The write takes them instead of making
them again, where they are what it would make."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from recall.index.rows import files_column
from recall.model import Memory

if TYPE_CHECKING:
    from recall.ranking.embedding import Embedder

_VectorKey = tuple[str, str, tuple[str, ...]]


def vector_text(memory: Memory) -> str:
    """What ``memory``'s vector is computed from (as :func:`recall.ranking.vectors.memory_text`
    makes it from the stored columns)."""
    return f"{memory.summary}\n{memory.details}\n{files_column(memory.files)}"


def _vector_key(memory: Memory) -> _VectorKey:
    """What :func:`vector_text` is made of (the same key, the same text)."""
    return (memory.summary, memory.details, memory.files)


@dataclass
class MadeAhead:
    """The vectors ``embedder`` made, by what they were made from (a text's vector depends
    on nothing else), and the file texts rendered for memories given the id they asked for."""

    embedder: Embedder | None
    vectors: dict[_VectorKey, bytes] = field(default_factory=dict)
    texts: dict[str, tuple[Memory, str]] = field(default_factory=dict)

    def add(
        self,
        memories: Sequence[Memory],
        blobs: Sequence[bytes],
        texts: Sequence[tuple[Memory, str]],
    ) -> None:
        """Keep the vectors ``blobs`` (stored form) of ``memories``, one each, and the file
        ``texts`` of memories with ids (the first for an id)."""
        for memory, blob in zip(memories, blobs, strict=True):
            self.vectors[_vector_key(memory)] = blob
        for memory, text in texts:
            self.texts.setdefault(memory.id, (memory, text))

    def forget(self, drafts: Sequence[tuple[Memory, str | None]]) -> None:
        """Drop what was made for ``drafts`` (each with the id it asked for), once written or
        found a duplicate: an import holds a chunk's worth at a time, not all of it. A later
        draft with the same text, or asking for the same id, has them made by the write."""
        for memory, wanted in drafts:
            self.vectors.pop(_vector_key(memory), None)
            if wanted is not None:
                self.texts.pop(wanted, None)

    def text_of(self, memory: Memory) -> str | None:
        """The file text rendered ahead for exactly ``memory``, if any (handed out once)."""
        found = self.texts.pop(memory.id, None)
        return found[1] if found is not None and found[0] == memory else None

    def store(
        self,
        conn: sqlite3.Connection,
        embedder: Embedder,
        new: Sequence[tuple[int, Memory]],
        stored: list[tuple[int, bytes]] | None = None,
    ) -> list[tuple[int, Memory]]:
        """Store the vectors made for the memories ``new`` (rowid, memory) when ``embedder``
        is the one that made them, in the caller's transaction; return those left without.
        What is stored, (rowid, stored form), is added to ``stored`` too when given."""
        if self.embedder is None or self.embedder.name != embedder.name:
            return list(new)
        from recall.ranking.vectors import insert_vectors  # writes only: numpy comes with it

        found: list[tuple[int, bytes]] = []
        left: list[tuple[int, Memory]] = []
        for rowid, memory in new:
            blob = self.vectors.get(_vector_key(memory))
            if blob is None:
                left.append((rowid, memory))
            else:
                found.append((rowid, blob))
        insert_vectors(conn, embedder.name, found)
        if stored is not None:
            stored.extend(found)
        return left
