"""The documents the server knows: which root and path each belongs to, and whether it can be
read at all. Untitled buffers, files outside every root, binary and huge documents get a logged
warning (once per document) and nothing else."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument, Workspace

from lsp_server.roots import Root
from recall.ranking.engine import Hit
from recall.store import MemoryStore

if TYPE_CHECKING:
    from lsp_server.doc_parse import DocumentParse
    from lsp_server.server import TetherServer


@dataclass
class Shown:
    """A memory published as a diagnostic on a document, kept for hover and code actions."""

    hit: Hit
    range: types.Range
    diagnostic: types.Diagnostic


@dataclass
class DocState:
    """What the server keeps about one document."""

    uri: str
    path: Path
    root: Root
    rel: str
    memory_store: MemoryStore | None = None
    """Set when the document is a memory file of that store."""
    shown: list[Shown] = field(default_factory=list)
    disk_mtime: int = 0
    """The file's mtime when last seen, to notice it being rewritten on disk."""
    last_published: float = 0.0
    """When diagnostics were last published (monotonic seconds), to recognise bursts."""
    pending: asyncio.TimerHandle | None = None
    """A publish deferred to the end of a burst of changes."""
    refine: asyncio.Handle | None = None
    """A ranking for a stronger touch, due right after a publish that used a weaker one's."""
    refine_base: list[Hit] = field(default_factory=list)
    """The candidates that publish was chosen from."""
    parse: DocumentParse | None = None
    """The definitions diagnostics are placed on: the last parse, carried through the edits
    typed since (None until a memory shown here anchors a symbol)."""
    reparse: asyncio.TimerHandle | None = None
    """The parse due once typing pauses, when :attr:`parse` was carried through edits."""

    @property
    def is_memory(self) -> bool:
        """Whether this document is a memory file."""
        return self.memory_store is not None


def editor_copy(workspace: Workspace, uri: str) -> TextDocument | None:
    """The client's copy of the document at ``uri`` while the client has it open, else None.

    pygls keeps open documents under the percent-decoded URI while clients send it encoded
    (``my%20repo``): every lookup of an open document goes through here, whatever the spelling.
    """
    return workspace.text_documents.get(unquote(uri))


LOCAL_HOST = "file://localhost/"
"""How a ``file:`` URI may name this machine (RFC 8089): the same file as ``file:///``; read
as a host, it would become a network path outside every workspace."""


def file_path(uri: str) -> Path | None:
    """The absolute path of a ``file:`` URI (``file://localhost/`` too), None for any other
    scheme: every URI the client sends becomes a path here."""
    if not uri.startswith("file:"):
        return None
    if uri[: len(LOCAL_HOST)].lower() == LOCAL_HOST:
        uri = "file:///" + uri[len(LOCAL_HOST) :]
    path = to_fs_path(uri)
    return Path(os.path.abspath(path)) if path else None


def resolve(ls: TetherServer, uri: str, *, track: bool = False) -> DocState | None:
    """The state of the document at ``uri``, created on first sight; None when unusable.

    It is kept, and so published for from then on, only while the client has the document
    open, or with ``track`` (a file an agent wrote on disk, see :mod:`lsp_server.watching`).
    Any other (a command or a code action naming a file that is not open, a save of one) gets
    a state of its own for that one request, which nothing publishes for later.
    """
    known = ls.docs.get(uri)
    if known is not None:
        return known
    path = file_path(uri)
    if path is None:
        ls.warn_once(uri, f"not a file on disk ({uri.split(':', 1)[0]}:); no memories for it")
        return None
    root = ls.roots.for_path(path)
    found = ls.roots.for_memory_file(path)  # global memory files live outside every folder
    if found is not None:
        state = DocState(uri, path, found[0], path.name, memory_store=found[1])
    else:
        rel = root.relative(path) if root is not None else None
        if root is None or rel is None:
            ls.warn_once(uri, f"{path} is outside every workspace root; no memories for it")
            return None
        state = DocState(uri, path, root, rel)
    if track or editor_copy(ls.workspace, uri) is not None:
        ls.docs[uri] = state
    return state


def tracked(ls: TetherServer, doc: DocState) -> bool:
    """Whether the server publishes for ``doc`` (see :func:`resolve`)."""
    return ls.docs.get(doc.uri) is doc


def usable_text(ls: TetherServer, doc: DocState, text: str) -> bool:
    """Whether a document's text can be searched for anchors (not binary, not huge)."""
    if len(text) > doc.root.settings.max_document_chars:
        ls.warn_once(
            doc.uri,
            f"{doc.path} has {len(text)} characters, over maxDocumentChars "
            f"({doc.root.settings.max_document_chars}); no memories shown for it",
        )
        return False
    if "\x00" in text:
        ls.warn_once(doc.uri, f"{doc.path} looks binary; no memories shown for it")
        return False
    return True


def current_text(ls: TetherServer, doc: DocState) -> str | None:
    """The document's text: the editor's copy when open, else the file (None if unreadable)."""
    opened = editor_copy(ls.workspace, doc.uri)
    if opened is not None:
        return opened.source
    try:
        size = os.stat(doc.path).st_size
        if size > doc.root.settings.max_document_chars * 4:
            ls.warn_once(doc.uri, f"{doc.path} is too large ({size} bytes); skipped")
            return None
        data = doc.path.read_bytes()
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")


def open_texts(ls: TetherServer, repo_root: Path | None) -> dict[str, str]:
    """The editor's text of every code document it holds open in the repository at
    ``repo_root``, by repo-relative path: what a write reads a symbol's body from, saved or
    not (an open document counts as present)."""
    if repo_root is None:
        return {}
    texts = {}
    for doc in list(ls.docs.values()):
        opened = editor_copy(ls.workspace, doc.uri)
        if opened is not None and not doc.is_memory and doc.root.repo_root == repo_root:
            texts[doc.rel] = opened.source
    return texts


def open_not_on_disk(ls: TetherServer, repo: Path, path: str) -> bool:
    """Whether ``path`` (relative to the repository at ``repo``) is missing on disk but open
    in the editor as a code document of that repository: a buffer not saved yet, or a file
    deleted while open. Its memories show on it all the same."""
    if os.path.lexists(repo / path):
        return False
    return any(
        doc.rel == path and doc.root.repo_root == repo and not doc.is_memory
        for doc in ls.docs.values()
        if editor_copy(ls.workspace, doc.uri) is not None
    )
