"""Where drafts live until they are memories, and what is left of them when they are dropped.

A draft ("Remember something about this file…", "Supersede…") is written in the store's
``drafts/`` folder, beside ``memories/``, which no store reads and git ignores: a draft left
empty, or one never saved, is never a memory, a broken file or a line of ``tether doctor``.
Saving it with a summary writes its text as the memory file (:mod:`lsp_server.memory_documents`);
later saves of the same draft write it again, as long as nothing else rewrote the memory file
since (:mod:`lsp_server.memory_documents`). A draft closed with nothing of the person's left in
it (empty, as the server made it, or as its memory file holds it, with no supersede of it still
to be marked) is removed; so is one the server made this session and nobody touched, at
shutdown. What the editor holds counts too: a draft whose editor copy was last seen with edits
its file does not hold (typed, not saved) is kept. Any other draft is kept and its path said
with the reason (:mod:`lsp_server.draft_kept`): nothing a person wrote is dropped.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall import frontmatter
from recall.containment import DRAFTS_FOLDER, refuse_link
from recall.errors import MalformedMemory, TetherError
from recall.locations import Location
from recall.memfiles import MemoryFolder

if TYPE_CHECKING:
    from lsp_server.documents import DocState
    from lsp_server.server import TetherServer
    from recall.store import MemoryStore

FOLDER: Final = DRAFTS_FOLDER
IGNORE_ALL: Final = "# Drafts from the editor, memories once saved; never committed.\n*\n"


def drafts_dir(location: Location) -> Path:
    """The drafts folder of a store."""
    return location.base / FOLDER


def shaped_as_one(path: Path) -> bool:
    """Whether ``path`` reads as a draft of some store, served here or not: a ``.md`` file in
    a drafts folder that has a memory folder beside it."""
    folder = path.parent
    return (
        path.suffix == ".md"
        and folder.name == FOLDER
        and Location("", folder.parent, None).memories_dir.is_dir()
    )


def real(path: Path) -> Path:
    """``path`` resolved, as drafts are known by (a folder opened through a symbolic link names
    them by the link; the stores, and the drafts the server made, by the real path)."""
    return Path(os.path.realpath(path))


def is_draft(doc: DocState) -> bool:
    """Whether ``doc`` is a draft (a memory document in a drafts folder, however reached)."""
    store = doc.memory_store
    return store is not None and real(doc.path.parent) == real(drafts_dir(store.location))


def folder_of(store: MemoryStore) -> MemoryFolder:
    """The store's drafts folder, created (with a ``.gitignore`` keeping it out of git) if
    need be; a draft is written there as a memory file is, atomically and with its mode."""
    path = drafts_dir(store.location)
    if store.scope != "global":  # a project store is the repository's: its links are not trusted
        refuse_link(path)
    path.mkdir(mode=0o700 if store.scope == "global" else 0o755, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    with contextlib.suppress(FileExistsError):  # never through a link (O_NOFOLLOW)
        fd = os.open(path / ".gitignore", flags, store.folder.file_mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(IGNORE_ALL)
    return MemoryFolder(path, file_mode=store.folder.file_mode)


def unsaved(ls: TetherServer, path: Path, text: str, store: MemoryStore) -> bool:
    """Whether the editor's copy of the draft at ``path`` (resolved), as last opened or
    changed, holds words of the person's that its file, holding ``text``, does not: typed and
    not saved, be the document still open or closed since without a save. A copy holding
    only what the server made (a client that creates the file empty and puts the text in its
    buffer) holds none."""
    buffer = ls.draft_buffers.get(path)
    return buffer is not None and buffer != text and not _left_nothing(ls, path, buffer, store)


def _nothing_of_theirs(ls: TetherServer, path: Path, text: str, store: MemoryStore) -> bool:
    """Whether a draft holding ``text`` has nothing a person wrote that is kept nowhere else,
    neither in its file nor in the editor's copy of it (:func:`unsaved`)."""
    return not unsaved(ls, path, text, store) and _left_nothing(ls, path, text, store)


def _left_nothing(ls: TetherServer, path: Path, text: str, store: MemoryStore) -> bool:
    """Whether ``text`` of the draft at ``path`` holds nothing of the person's: empty, byte
    for byte as the server made it, or as its memory file holds it while no supersede of it
    is still to be marked (the draft is how that is finished)."""
    if not text.strip() or text == ls.drafts.get(path):
        return True
    try:
        if (store.folder.path / path.name).read_text(encoding="utf-8") != text:
            return False
    except (OSError, UnicodeDecodeError):
        return False
    return not link_pending(store, text, path)


def link_pending(store: MemoryStore, text: str, path: Path) -> bool:
    """Whether a draft holding ``text`` supersedes a memory still active (the mark failed, the
    store busy): True too when that cannot be read now, so the draft is kept."""
    try:
        old_id = frontmatter.parse(text, path).fields.get("supersedes")
    except MalformedMemory:
        return False
    if not isinstance(old_id, str) or not old_id or old_id == path.stem:
        return False
    try:
        old, new = store.find(old_id), store.find(path.stem)
    except (TetherError, sqlite3.Error):
        return True
    still_new = new is None or new.status == "active"  # None: not read into the index yet
    return old is not None and old.status == "active" and still_new


def drop_if_left(ls: TetherServer, path: Path, store: MemoryStore) -> bool:
    """Remove the draft at ``path`` (resolved) when nothing of the person's is in it (see
    :func:`_nothing_of_theirs`); True when it was removed or is gone. A draft that cannot be
    read or removed is kept, and that is logged: never raised (shutdown goes on)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        _forget(ls, path)
        return True
    except (OSError, UnicodeDecodeError):
        return False
    if not _nothing_of_theirs(ls, path, text, store):
        return False
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as error:
        ls.warn(f"the draft {path} could not be removed ({error}); delete it by hand")
        return False
    _forget(ls, path)
    return True


def _forget(ls: TetherServer, path: Path) -> None:
    """A draft is gone: nothing more is known of it."""
    ls.drafts.pop(path, None)
    ls.draft_buffers.pop(path, None)
