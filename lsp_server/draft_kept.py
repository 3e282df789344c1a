"""Drafts closed, or left at shutdown: removed when nothing of the person's would go with them
(:func:`lsp_server.draft_files.drop_if_left`), else kept and said so with the reason they were
kept and what to do: edits not saved, a memory file changed since the draft wrote it, a
supersede still to be marked, or what keeps the draft from being a memory (its first error,
on its line)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server import draft_files, memory_documents
from lsp_server.documents import DocState, editor_copy, resolve
from recall.errors import TetherError

if TYPE_CHECKING:
    from lsp_server.server import TetherServer
    from recall.store import MemoryStore

SAVE_OR_DELETE = "then save the draft to remember it, or delete the draft"
"""How the advice on a draft that is not a memory yet ends."""


def typed(ls: TetherServer, doc: DocState) -> None:
    """A draft's document was opened or changed: note the editor's copy of it, which holds
    what was typed and not saved yet."""
    opened = editor_copy(ls.workspace, doc.uri)
    if opened is not None and draft_files.is_draft(doc):
        ls.draft_buffers[draft_files.real(doc.path)] = opened.source


def _its_problem(ls: TetherServer, doc: DocState, text: str) -> str | None:
    """The first thing that keeps a draft holding ``text`` from being written as a memory (an
    error, or the text of the memory it supersedes), with its line; None when nothing does, or
    when the store cannot tell now (busy elsewhere: a shutdown goes on all the same)."""
    try:
        found = memory_documents.problems(ls, doc, text)
    except (TetherError, sqlite3.Error):
        return None
    errors = [d for d in found if d.severity == types.DiagnosticSeverity.Error]
    same = [d for d in found if memory_documents.SAME_TEXT in d.message]
    for problem in errors + same:
        return f"line {problem.range.start.line + 1}: {problem.message}; {SAVE_OR_DELETE}"
    return None


def why_kept(ls: TetherServer, doc: DocState, path: Path, store: MemoryStore) -> str:
    """Why the draft at ``path`` (resolved) was kept, and what to do about it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return f"it cannot be read ({error}); delete it by hand if you do not need it"
    if draft_files.unsaved(ls, path, text, store):
        if editor_copy(ls.workspace, doc.uri) is not None:
            return "it has edits not saved: save them (with a summary, to remember it)"
        return (
            "it was closed with edits not saved, which its file does not hold: open it to "
            f"write them again, {SAVE_OR_DELETE}"
        )
    target = store.folder.path / path.name
    try:
        held: bytes | None = target.read_bytes()
    except FileNotFoundError:
        held = None
    except OSError as error:
        return f"its memory file {target} cannot be read ({error}); see to it, then save again"
    if held is not None and held == text.encode() and draft_files.link_pending(store, text, path):
        return (
            "the memory it supersedes is not marked superseded yet (the store was busy): that "
            "is done at the next message once the store is free, or save the draft again"
        )
    now = None if held is None else memory_documents.digest(held)
    written = {memory_documents.digest(text.encode()), ls.draft_writes.get(path)}
    if now is not None and now not in written:
        return (
            f"its memory file {target} changed since the draft last wrote it (a pin, an "
            "archive, a pull, an edit), so saving the draft writes nothing: copy what you "
            "want from the draft into the memory file, then delete the draft"
        )
    problem = _its_problem(ls, doc, text)
    if problem is not None:
        return problem
    return f"it is not saved as a memory yet: {SAVE_OR_DELETE}"


def closed(ls: TetherServer, doc: DocState) -> None:
    """A draft's document was closed: removed if nothing of the person's is left in it, else
    kept and its path said with the reason, in the log and once on screen (it is no memory
    until saved)."""
    store = doc.memory_store
    path = draft_files.real(doc.path)
    if store is None or not draft_files.is_draft(doc) or draft_files.drop_if_left(ls, path, store):
        return
    reason = why_kept(ls, doc, path, store)
    ls.warn_once(f"kept {path} {reason}", f"the draft {path} is kept: {reason}", show=True)


FALLBACK = f"it may hold what you wrote: {SAVE_OR_DELETE}"
"""What a kept draft is told when its document cannot be told apart (it is outside every
workspace folder now)."""


def _open_doc(ls: TetherServer, path: Path) -> DocState | None:
    """The document of the draft at ``path`` (resolved) the editor has open, however its URI
    spells it (a folder opened through a symbolic link)."""
    for doc in ls.docs.values():
        if draft_files.is_draft(doc) and draft_files.real(doc.path) == path:
            return doc
    return None


def sweep(ls: TetherServer, stores: list[MemoryStore], *, show: bool = False) -> None:
    """At shutdown: remove the drafts made this session that nobody touched (a client that
    cannot open them was told the path, and it was never opened) and those with nothing of
    the person's in them; log the others' paths, each with the reason it was kept, and with
    ``show`` show it too (once: not again when its close said the same)."""
    folders = {draft_files.real(draft_files.drafts_dir(store.location)): store for store in stores}
    for path in list(ls.drafts):
        store = folders.get(draft_files.real(path.parent))
        if store is None or draft_files.drop_if_left(ls, path, store) or not path.exists():
            continue
        doc = _open_doc(ls, path) or resolve(ls, path.as_uri())
        reason = FALLBACK if doc is None else why_kept(ls, doc, path, store)
        message = f"the draft {path} is kept: {reason}"
        if show:
            ls.warn_shown_once(f"kept {path} {reason}", message)
        else:
            ls.warn(message)
