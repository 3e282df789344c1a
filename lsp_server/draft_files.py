"""Where drafts live until they are memories, and what is left of them when they are dropped.

A draft ("Remember something about this file…", "Supersede…") is written in the store's
``drafts/`` folder, beside ``memories/``, which no store reads and git ignores: a draft left
empty, or one never saved, is never a memory, a broken file or a line of ``tether doctor``.
Saving it with a summary writes its text as the memory file (:mod:`lsp_server.memory_documents`);
later saves of the same draft write it again. A draft closed with nothing of the person's left
in it (empty, as the server made it, or as its memory file holds it) is removed; so is one the
server made this session and nobody touched, at shutdown.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall import frontmatter
from recall.errors import MalformedMemory
from recall.locations import Location
from recall.memfiles import MemoryFolder

if TYPE_CHECKING:
    from lsp_server.documents import DocState
    from lsp_server.server import TetherServer
    from recall.store import MemoryStore

FOLDER: Final = "drafts"
IGNORE_ALL: Final = "# Drafts from the editor, memories once saved; never committed.\n*\n"


def drafts_dir(location: Location) -> Path:
    """The drafts folder of a store."""
    return location.base / FOLDER


def is_draft(doc: DocState) -> bool:
    """Whether ``doc`` is a draft (a memory document not in the memory folder)."""
    store = doc.memory_store
    return store is not None and doc.path.parent == drafts_dir(store.location)


def folder_of(store: MemoryStore) -> MemoryFolder:
    """The store's drafts folder, created (with a ``.gitignore`` keeping it out of git) if
    need be; a draft is written there as a memory file is, atomically and with its mode."""
    path = drafts_dir(store.location)
    path.mkdir(mode=0o700 if store.scope == "global" else 0o755, exist_ok=True)
    with contextlib.suppress(FileExistsError):  # never through a link (O_NOFOLLOW)
        fd = os.open(path / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(IGNORE_ALL)
    return MemoryFolder(path, file_mode=store.folder.file_mode)


def _nothing_of_theirs(ls: TetherServer, doc_path: Path, text: str, memory: Path) -> bool:
    """Whether a draft holding ``text`` has nothing a person wrote that is kept nowhere else:
    empty, as the server made it, without a body, or as its memory file holds it."""
    if not text.strip() or text == ls.drafts.get(doc_path):
        return True
    try:
        if memory.read_text(encoding="utf-8") == text:
            return True
    except (OSError, UnicodeDecodeError):
        pass
    try:
        parsed = frontmatter.parse(text, doc_path)
    except MalformedMemory:
        return False
    return not (parsed.summary or "").strip() and not parsed.details.strip()


def drop_if_left(ls: TetherServer, path: Path, store: MemoryStore) -> bool:
    """Remove the draft at ``path`` when nothing of the person's is in it (see
    :func:`_nothing_of_theirs`); True when it was removed or is gone."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        ls.drafts.pop(path, None)
        return True
    except (OSError, UnicodeDecodeError):
        return False
    if not _nothing_of_theirs(ls, path, text, store.folder.path / path.name):
        return False
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    ls.drafts.pop(path, None)
    return True


def closed(ls: TetherServer, doc: DocState) -> None:
    """A draft's document was closed: removed if nothing of the person's is left in it, else
    kept and said where (it is no memory until it is finished and saved)."""
    store = doc.memory_store
    if store is None or not is_draft(doc) or drop_if_left(ls, doc.path, store):
        return
    ls.log(f"the draft {doc.path} is kept: write its summary and save it to remember, or delete it")


def sweep(ls: TetherServer, stores: list[MemoryStore]) -> None:
    """At shutdown: remove the drafts made this session that nobody touched (a client that
    cannot open them was told the path, and it was never opened)."""
    folders = {drafts_dir(store.location): store for store in stores}
    for path in list(ls.drafts):
        store = folders.get(path.parent)
        if store is not None:
            drop_if_left(ls, path, store)
