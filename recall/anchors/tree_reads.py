"""Anchored files as the working tree holds them, where it holds them otherwise than the symbol
index read them: ``show``, ``doctor`` and the MCP ``memory_get`` say an anchor's state from the
working tree, as ``check`` and ``repoint`` do.

The index follows HEAD and git's index: it is refreshed when either moves, so an edit not yet
staged (a function renamed a moment ago) is not in it. Only the anchored files asked about are
looked at, each once: one whose content is still the one the index read (its blob id, or its
size and modification time for a file that differed from git's index then) is answered from the
index; any other is parsed anew from the working tree (:func:`tree_reads`). Where an anchored
name is no longer in its file, the other files the working tree changed or added are looked at
too (:class:`ChangedFiles`), once, and parsed only where their text holds the name: a function
moved into another file not committed yet is found there, as ``check`` finds it. A file in a
submodule's work tree, which git lists none of and so the index never reads, is always read from
the working tree, as ``remember`` read it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recall.anchors.defined_names import NamesIn
from recall.anchors.symbols import SymbolAnchor, leaf_of, normalize_name
from recall.containment import read_plain_prefix
from recall.genome.imports.scan import stat_key
from recall.genome.limits import MAX_CHANGED_FILES_READ, MAX_SCAN_BYTES
from recall.genome.names import in_submodule
from recall.genome.schema import read_state
from recall.genome.symbols.extract import extract
from recall.genome.symbols.grammars import reads
from recall.genome.symbols.index import symbol_key
from recall.genome.symbols.lookup import Located, among, keys_of
from recall.gitquery import git_stdout


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


class TreeReads(dict[str, FileNow]):
    """The anchored files the working tree holds otherwise than the index read them, by path,
    and (``changed``) the other files it changed or added, looked at only when asked."""

    def __init__(
        self, found: dict[str, FileNow] | None = None, changed: ChangedFiles | None = None
    ) -> None:
        super().__init__(found or {})
        self.changed = changed


def _blob_id(data: bytes, length: int) -> str:
    """Git's id of a blob holding ``data``: SHA-1, or SHA-256 for an id of its length."""
    digest = hashlib.sha256 if length == 64 else hashlib.sha1
    return digest(b"blob %d\0" % len(data) + data).hexdigest()


def _content_now(root: Path, path: str, key: str | None) -> bytes | FileNow | None:
    """What the working tree holds at ``path`` when that is not the content the index read
    under ``key`` (any content, for a file the index did not read): its bytes, or the
    :class:`FileNow` of a file that is gone or cannot be read; None when it is that content."""
    full = root / path
    stat_keyed = key is not None and key.startswith("stat:")
    try:
        if stat_keyed and key == symbol_key(path, stat_key(os.lstat(full))):
            return None
        data = read_plain_prefix(full, MAX_SCAN_BYTES + 1)
    except FileNotFoundError:
        return FileNow(None)
    except OSError as error:  # a pipe or a folder in its place, as the index would say it
        return FileNow(f"skipped: unreadable ({error.strerror or error})")
    if key is not None and not stat_keyed and len(data) <= MAX_SCAN_BYTES:
        blob = key.rpartition("@")[0]
        if _blob_id(data, len(blob)) == blob:
            return None
    return data


def _parsed(path: str, data: bytes) -> FileNow:
    """The definitions of ``path`` holding ``data``, read as the symbol index reads files."""
    read = extract(path, data)
    found = (
        Located(path, d.name, d.kind, d.start, d.end, d.body, d.formers) for d in read.definitions
    )
    return FileNow(read.parser, tuple(found))


def _read_now(root: Path, path: str, key: str | None) -> FileNow | None:
    """``path`` as the working tree holds it when that is not the content the index read under
    ``key``; None when it is."""
    now = _content_now(root, path, key)
    return _parsed(path, now) if isinstance(now, bytes) else now


@dataclass
class ChangedFiles:
    """The files of the working tree at ``root`` that hold otherwise than the index ``conn``
    read them, besides those of ``known`` (read already): changed and not staged, added and
    not tracked, or read by the index from the working tree and changed since. Listed once,
    when first asked (two git processes); a file is parsed only when its text holds a name
    asked for. At most :data:`MAX_CHANGED_FILES_READ` are looked at, the newest first."""

    root: Path
    conn: sqlite3.Connection
    known: frozenset[str]
    _texts: dict[str, bytes | FileNow] | None = None
    _parses: dict[str, FileNow] = field(default_factory=dict)

    @property
    def paths(self) -> set[str]:
        """The files the working tree holds otherwise than the index read them."""
        return set(self._changed())

    def holding(self, leaf: str) -> list[FileNow]:
        """The changed files whose text holds ``leaf``, as parsed now (a file that is gone
        holds nothing)."""
        wanted = leaf.encode("utf-8", "surrogatepass")
        found: list[FileNow] = []
        for path, now in self._changed().items():
            if isinstance(now, FileNow) or wanted not in now:
                continue
            if path not in self._parses:
                self._parses[path] = _parsed(path, now)
            found.append(self._parses[path])
        return found

    def _changed(self) -> dict[str, bytes | FileNow]:
        if self._texts is None:
            self._texts = self._read()
        return self._texts

    def _read(self) -> dict[str, bytes | FileNow]:
        listed = _listed_changes(self.root) | _stat_read(self.conn)
        paths = [p for p in listed if p not in self.known and reads(p)]
        paths.sort(key=lambda p: _modified(self.root / p), reverse=True)
        looked = paths[:MAX_CHANGED_FILES_READ]
        keys = keys_of(self.conn, looked)
        found = {p: _content_now(self.root, p, keys.get(p)) for p in looked}
        return {path: now for path, now in found.items() if now is not None}


def _listed_changes(root: Path) -> set[str]:
    """The files git lists as changed in the working tree and not staged, or added and not
    tracked (nor ignored); none when git cannot say."""
    from recall.anchors.prior import GIT_TIMEOUT_S

    found: set[str] = set()
    for args in (
        ("diff", "--name-only", "-z"),
        ("ls-files", "--others", "--exclude-standard", "-z"),
    ):
        out = git_stdout(root, *args, timeout=GIT_TIMEOUT_S)
        if out:
            found.update(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p)
    return found


def _stat_read(conn: sqlite3.Connection) -> set[str]:
    """The files the index read from the working tree (they differed from git's index then)."""
    try:
        rows = conn.execute(
            "SELECT path FROM genome_symbol_files WHERE key LIKE 'stat:%'"
        ).fetchall()
    except sqlite3.OperationalError:
        return set()
    return {str(path) for (path,) in rows}


def _modified(path: Path) -> int:
    """When ``path`` was last modified (ns), 0 for a file that is gone."""
    try:
        return os.lstat(path).st_mtime_ns
    except OSError:
        return 0


def tree_reads(genome: Any | None, anchors: Iterable[SymbolAnchor]) -> TreeReads:
    """The files of ``anchors`` that the working tree of ``genome`` (a
    :class:`recall.genome.Genome`) holds otherwise than its symbol index read them, each read
    once; none without a genome, its index, or a working tree."""
    conn = getattr(genome, "conn", None)
    root = getattr(genome, "repo_root", None)
    if conn is None or root is None:
        return TreeReads()
    paths = {anchor.path for anchor in anchors}
    keys: dict[str, str | None] = dict(keys_of(conn, paths))
    state = read_state(conn)
    keys.update({path: None for path in paths - set(keys) if in_submodule(path, state)})
    found = {path: _read_now(Path(root), path, key) for path, key in keys.items()}
    changed = ChangedFiles(Path(root), conn, frozenset(keys))
    return TreeReads({path: now for path, now in found.items() if now is not None}, changed)


def names_now(names: NamesIn, tree: TreeReads) -> NamesIn:
    """``names`` with the files of ``tree`` answered as the working tree holds them."""

    def both(path: str) -> Sequence[str]:
        now = tree.get(path)
        return now.names if now is not None else names(path)

    return both


def candidates_now(hits: list[Located], name: str, tree: dict[str, FileNow]) -> list[Located]:
    """``hits`` (every file's definition of ``name`` in the index) with those of the files of
    ``tree`` as the working tree holds them, and of the other files it changed (when ``tree``
    is a :class:`TreeReads` that knows them): a file edited since may define it no more, or
    define it now."""
    changed = getattr(tree, "changed", None)
    elsewhere = changed.paths if changed is not None else set()
    kept = [hit for hit in hits if hit.path not in tree and hit.path not in elsewhere]
    for now in tree.values():
        kept += among(list(now.definitions), name)[:1]
    if changed is not None:
        for now in changed.holding(leaf_of(normalize_name(name))):
            kept += among(list(now.definitions), name)[:1]
    return kept
