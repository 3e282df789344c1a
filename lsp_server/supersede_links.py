"""Supersedes left half-done: the successor written, the memory it replaces not marked yet.

Saving a supersede's draft writes its text as the successor's memory file, then marks the old
memory superseded (:mod:`lsp_server.memory_documents`). When the store cannot take the second
step (another process holds it), or the server stopped between the two, the old memory stays
active beside its successor, and its draft is kept (:func:`lsp_server.draft_files.link_pending`).
Such a supersede is finished when the server next can, not only at the draft's next save: a
link that failed is kept here, and each store's drafts folder is looked at (at the first poll,
and again whenever the folder changes) for drafts holding what their memory file holds and
naming an active memory they supersede. The poll before every request (:func:`finish`) marks
the kept ones once their store is free, and removes a draft left with nothing of the person's
in it that no editor has open.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_server import diagnostics, draft_files
from lsp_server.documents import editor_copy
from recall import frontmatter
from recall.clock import now_iso
from recall.errors import StoreBusy, TetherError
from recall.model import Memory
from recall.records import memory_from_parsed
from recall.store.busy import held_elsewhere

if TYPE_CHECKING:
    from lsp_server.roots import Root
    from lsp_server.server import TetherServer
    from recall.store import MemoryStore


class SupersedeLinks:
    """The half-done supersedes of a session, by draft (resolved path)."""

    def __init__(self) -> None:
        self.pending: dict[Path, tuple[Root, MemoryStore]] = {}
        """Drafts whose successor is written and whose old memory is still to be marked."""
        self.looked: dict[Path, int] = {}
        """Each drafts folder looked at, with its modification time then."""


def keep(ls: TetherServer, root: Root, store: MemoryStore, draft: Path) -> None:
    """Keep the supersede of ``draft`` (whose old memory could not be marked) to finish."""
    ls.supersede_links.pending[draft_files.real(draft)] = (root, store)


def mark(ls: TetherServer, root: Root, store: MemoryStore, written: Memory) -> bool:
    """Mark the memory ``written`` supersedes so, if both are as a supersede leaves them (the
    successor active in the index, the old one active with other text); True when it was
    marked. :class:`StoreBusy` when the successor is not read into the index yet (another
    process holds the store)."""
    new = store.find(written.id)
    if new is None and written.supersedes and written.supersedes != written.id:
        old = store.find(written.supersedes)
        if old is not None and old.status == "active":  # written, not read in: busy elsewhere
            raise StoreBusy(f"the store has not read {written.id} in yet, busy elsewhere")
    if new is None or new.status != "active" or not new.supersedes or new.supersedes == new.id:
        return False
    old = store.find(new.supersedes)
    if old is None or old.status != "active" or old.content_hash == new.content_hash:
        return False
    store.update_fields(old.id, {"status": "superseded", "superseded_by": new.id})
    root.usage.acted(store, old.id)
    root.bump()
    ls.show_info(f"Memory {old.id} is now superseded by {new.id}.")
    return True


def _look(ls: TetherServer) -> None:
    """Keep the half-done supersedes found in drafts folders changed since the last look."""
    links = ls.supersede_links
    for root in ls.roots:
        for store in root.stores():
            folder = draft_files.drafts_dir(store.location)
            try:
                changed = os.stat(folder).st_mtime_ns
            except OSError:
                continue  # no drafts folder: no draft
            if links.looked.get(folder) == changed:
                continue
            links.looked[folder] = changed
            for draft in sorted(folder.glob("*.md")):
                if _successor_text(store, draft) is not None:
                    keep(ls, root, store, draft)


def _successor_text(store: MemoryStore, draft: Path) -> str | None:
    """The draft's text when its memory file holds the same and it supersedes an active
    memory still to be marked; None otherwise (nothing of it is half-done)."""
    try:
        text = draft.read_text(encoding="utf-8")
        written = (store.folder.path / draft.name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if text != written or not draft_files.link_pending(store, text, draft):
        return None
    return text


def finish(ls: TetherServer) -> None:
    """Finish each kept supersede whose store is free now; publish again where one was."""
    _look(ls)
    done: dict[int, Root] = {}
    for draft, (root, store) in list(ls.supersede_links.pending.items()):
        if root not in list(ls.roots) or not store.exists:
            del ls.supersede_links.pending[draft]
            continue
        if store.busy or held_elsewhere(store):
            continue  # finished at a poll once the other process lets the store go
        try:
            if _finish_one(ls, root, store, draft):
                done[id(root)] = root
        except StoreBusy:
            continue
        except (TetherError, sqlite3.Error, OSError) as error:
            ls.warn(f"the supersede of {draft} could not be finished ({error}); save it again")
        del ls.supersede_links.pending[draft]
    for root in done.values():
        diagnostics.republish(ls, root)


def _finish_one(ls: TetherServer, root: Root, store: MemoryStore, draft: Path) -> bool:
    """Mark the old memory of ``draft``'s supersede; True when it was marked. The draft is
    removed after, when no editor has it open and nothing of the person's is left in it."""
    text = _successor_text(store, draft)
    if text is None:
        return False  # saved since, rewritten or already done: nothing half-done is left
    parsed = frontmatter.parse(text, draft)
    written = memory_from_parsed(parsed, store.folder.path / draft.name, fallback_created=now_iso())
    if not mark(ls, root, store, written):
        return False
    if editor_copy(ls.workspace, draft.as_uri()) is None:
        draft_files.drop_if_left(ls, draft, store)
    return True
