"""Anchored files as the working tree holds them, where it holds them otherwise than the symbol
index read them: ``show``, ``doctor`` and the MCP ``memory_get`` say an anchor's state from the
working tree, as ``check`` and ``repoint`` do.

The index follows HEAD and git's index: it is refreshed when either moves, so an edit not yet
staged (a function renamed a moment ago) is not in it. Only the anchored files asked about are
looked at, each once: one whose content is still the one the index read (its blob id, or its
size and modification time for a file that differed from git's index then) is answered from the
index; any other is parsed anew from the working tree (:func:`tree_reads`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recall.anchors.defined_names import NamesIn
from recall.anchors.symbols import SymbolAnchor, leaf_of
from recall.containment import read_plain_prefix
from recall.genome.imports.scan import stat_key
from recall.genome.limits import MAX_SCAN_BYTES
from recall.genome.symbols.extract import extract
from recall.genome.symbols.index import symbol_key
from recall.genome.symbols.lookup import Located, among, keys_of


@dataclass(frozen=True)
class FileNow:
    """What one anchored file defines in the working tree: how it was read (``parser``, None
    when the working tree has no such file any more) and its definitions."""

    parser: str | None
    definitions: tuple[Located, ...] = ()

    def named(self, leaf: str) -> list[Located]:
        """The definitions whose last name part is ``leaf``, in source order."""
        return [hit for hit in self.definitions if leaf_of(hit.name) == leaf]

    @property
    def names(self) -> list[str]:
        """Every name the file defines, qualified as an anchor takes them."""
        return [hit.name for hit in self.definitions]


TreeReads = dict[str, FileNow]
"""The anchored files the working tree holds otherwise than the index read them, by path."""


def _blob_id(data: bytes, length: int) -> str:
    """Git's id of a blob holding ``data``: SHA-1, or SHA-256 for an id of its length."""
    digest = hashlib.sha256 if length == 64 else hashlib.sha1
    return digest(b"blob %d\0" % len(data) + data).hexdigest()


def _read_now(root: Path, path: str, key: str) -> FileNow | None:
    """``path`` as the working tree holds it when that is not the content the index read under
    ``key``; None when it is."""
    full = root / path
    stat_keyed = key.startswith("stat:")
    try:
        if stat_keyed and key == symbol_key(path, stat_key(os.lstat(full))):
            return None
        data = read_plain_prefix(full, MAX_SCAN_BYTES + 1)
    except FileNotFoundError:
        return FileNow(None)
    except OSError as error:  # a pipe or a folder in its place, as the index would say it
        return FileNow(f"skipped: unreadable ({error.strerror or error})")
    blob = key.rpartition("@")[0]
    if not stat_keyed and len(data) <= MAX_SCAN_BYTES and _blob_id(data, len(blob)) == blob:
        return None
    read = extract(path, data)
    found = (
        Located(path, d.name, d.kind, d.start, d.end, d.body, d.formers) for d in read.definitions
    )
    return FileNow(read.parser, tuple(found))


def tree_reads(genome: Any | None, anchors: Iterable[SymbolAnchor]) -> TreeReads:
    """The files of ``anchors`` that the working tree of ``genome`` (a
    :class:`recall.genome.Genome`) holds otherwise than its symbol index read them, each read
    once; none without a genome, its index, or a working tree."""
    conn = getattr(genome, "conn", None)
    root = getattr(genome, "repo_root", None)
    if conn is None or root is None:
        return {}
    keys = keys_of(conn, {anchor.path for anchor in anchors})
    found = {path: _read_now(Path(root), path, key) for path, key in keys.items()}
    return {path: now for path, now in found.items() if now is not None}


def names_now(names: NamesIn, tree: TreeReads) -> NamesIn:
    """``names`` with the files of ``tree`` answered as the working tree holds them."""

    def both(path: str) -> Sequence[str]:
        now = tree.get(path)
        return now.names if now is not None else names(path)

    return both


def candidates_now(hits: list[Located], name: str, tree: TreeReads) -> list[Located]:
    """``hits`` (every file's definition of ``name`` in the index) with those of the files of
    ``tree`` as the working tree holds them: a file edited since may define it no more, or
    define it now."""
    kept = [hit for hit in hits if hit.path not in tree]
    for now in tree.values():
        kept += among(list(now.definitions), name)[:1]
    return kept
