"""The edit stream in: open, change, save and close build the session's touched set and turns.

Diagnostics are published inside the didOpen/didChange handlers themselves. A save of a touched
file after edits ends a turn (hint cooldowns count turns), and the turn's end re-publishes every
open file, since memories hinted in the turn before now go quiet.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server import (
    broken_files,
    diagnostics,
    draft_files,
    draft_kept,
    memory_documents,
    progress,
    typing_pause,
    watching,
)
from lsp_server.documents import DocState, file_path, resolve, tracked

if TYPE_CHECKING:
    from lsp_server.server import TetherServer

MemoryHandler = Callable[["TetherServer", DocState], None]


def _stat_mtime(doc: DocState) -> int:
    try:
        return os.stat(doc.path).st_mtime_ns
    except OSError:
        return 0


def _code_document(
    ls: TetherServer, uri: str, on_memory: MemoryHandler, *, read_mtime: bool
) -> DocState | None:
    """The code document an open, change or save is about, after the steps they share: pick up
    other processes' writes, resolve the document (None outside every root, or not open: a
    save of a file the client does not have open is not taken up), note its time on disk when
    it was just read or written, and hand a memory file to ``on_memory`` (None)."""
    watching.poll(ls)
    doc = resolve(ls, uri)
    if doc is None or not tracked(ls, doc):
        return None
    if read_mtime:
        doc.disk_mtime = _stat_mtime(doc)
    if doc.is_memory:
        on_memory(ls, doc)
        return None
    return doc


def _memory_typed(ls: TetherServer, doc: DocState) -> None:
    """A memory document was opened or changed: a draft's editor copy is noted (what was
    typed and not saved keeps it), then its front matter is checked."""
    draft_kept.typed(ls, doc)
    memory_documents.check(ls, doc)


def did_open(ls: TetherServer, params: types.DidOpenTextDocumentParams) -> None:
    """A document was opened: touch it and publish its memories at once."""
    _opened(ls, params.text_document.uri)
    ls.run_deferred()  # the start-up work, held back until the first document was answered


def _opened(ls: TetherServer, uri: str) -> None:
    doc = _code_document(ls, uri, _memory_typed, read_mtime=True)
    if doc is not None:
        doc.parse = None  # the editor's copy starts here: later changes are carried from it
        doc.root.touch(doc.rel, "open")
        progress.catch_up_on_open(ls, doc.root)  # HEAD moved: read on, published again after
        diagnostics.publish(ls, doc, doc.root.touched[doc.rel])
        broken_files.tell(ls, [doc.root])  # its stores were read: what they could not load
        if not doc.disk_mtime:  # not on disk: the memory documents naming it say it is open
            memory_documents.check_all(ls)


def take_up_open_documents(ls: TetherServer) -> None:
    """Documents the client has open that no root held (a workspace folder was added since
    they were opened): taken up as if opened now, so their memories show before any edit."""
    for opened in list(ls.workspace.text_documents.values()):
        if opened.uri not in ls.docs:
            _opened(ls, opened.uri)


def did_change(ls: TetherServer, params: types.DidChangeTextDocumentParams) -> None:
    """A document changed: publish again on every change (some clients never bump versions)."""
    doc = _code_document(ls, params.text_document.uri, _memory_typed, read_mtime=False)
    if doc is not None:
        doc.root.touch(doc.rel, "edit")
        typing_pause.changed(ls, doc, params.content_changes)


def will_save(ls: TetherServer, params: types.WillSaveTextDocumentParams) -> None:
    """A document is about to be saved (only clients that declare willSave send this)."""
    watching.poll(ls)
    doc = ls.docs.get(params.text_document.uri)
    if doc is not None and not doc.is_memory:
        doc.root.touch(doc.rel, "save")


def did_save(ls: TetherServer, params: types.DidSaveTextDocumentParams) -> None:
    """A document was saved: a memory file is indexed; a touched code file may end the turn."""
    uri = params.text_document.uri
    doc = _code_document(ls, uri, memory_documents.saved, read_mtime=True)
    if doc is None:
        _unserved_draft(ls, uri)
        return
    root = doc.root
    root.touch(doc.rel, "save")
    if root.end_turn_if_saved(doc.rel):
        progress.refresh_if_stale(ls, root)
        diagnostics.republish(ls, root)
    else:
        diagnostics.publish(ls, doc, root.touched[doc.rel])
        memory_documents.check_all(ls)  # a file they name may be on disk now


def _unserved_draft(ls: TetherServer, uri: str) -> None:
    """A save that was not taken up: when it is of a draft of a store no root here serves (a
    repository not open in this workspace), say on screen that nothing was remembered and
    what to do, rather than leave the person thinking it was."""
    path = file_path(uri)
    if path is None or uri in ls.docs or not draft_files.shaped_as_one(path):
        return
    if ls.roots.for_memory_file(path) is not None:
        return  # served, only not open in the editor: a save of such a file is not taken up
    ls.warn_shown_once(
        f"unserved {path}",
        f"the draft {path} was saved but not remembered: this server serves no store it "
        "belongs to (its repository is not open in this workspace); open that repository "
        "in the editor, then save the draft again",
    )


def did_close(ls: TetherServer, params: types.DidCloseTextDocumentParams) -> None:
    """A document was closed: withdraw its diagnostics (it stays touched for the session)."""
    doc = ls.docs.pop(params.text_document.uri, None)
    if doc is not None:
        diagnostics.clear(ls, doc)
        draft_kept.closed(ls, doc)  # a draft with nothing of the person's in it goes
        if not doc.is_memory and not os.path.lexists(doc.path):
            memory_documents.check_all(ls)  # no longer open: not in the working tree


def register(server: TetherServer) -> None:
    """Add the text synchronisation handlers to the server."""
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_WILL_SAVE)(will_save)
    server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))(did_save)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)
