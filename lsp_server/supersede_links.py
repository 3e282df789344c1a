"""Supersedes left half-done in this server's lifetime: the successor written, the memory it
replaces not marked yet.

Saving a supersede's draft writes its text as the successor's memory file, then marks the old
memory superseded (:mod:`lsp_server.memory_documents`). When the store cannot take the second
step (another process holds it), the old memory stays active beside its successor, the draft
is kept (:func:`lsp_server.draft_files.link_pending`), and the supersede is kept here: the poll
before every request (:func:`finish`) marks it once the store is free, and removes a draft
left with nothing of the person's in it that no editor has open.

Only the links this lifetime kept are finished. A draft found on disk at start-up (one a
crash or a kill left behind) is never acted on: its supersede may have been finished and then
undone on purpose (``tether restore OLD`` removes the link from both memories, but the draft
still names the memory it superseded), so only the draft's own next save marks it again.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_server import diagnostics, draft_files
from lsp_server.documents import editor_copy
from lsp_server.supersede_words import not_active
from lsp_server.usage_counts import COUNT_WAIT_MS
from recall import frontmatter
from recall.clock import now_iso
from recall.errors import StoreBusy, TetherError
from recall.index.bookkeeping import waiting_at_most
from recall.index.db import is_busy
from recall.model import Memory
from recall.records import memory_from_parsed
from recall.store.busy import held_elsewhere

if TYPE_CHECKING:
    from lsp_server.roots import Root
    from lsp_server.server import TetherServer
    from recall.store import MemoryStore


class NotIndexed(StoreBusy):
    """The successor is not in the store's index: another process holding the store kept it
    from being read in, or (the store free) its file is one the index does not take."""


class SupersedeLinks:
    """The half-done supersedes of a session, by draft (resolved path)."""

    def __init__(self) -> None:
        self.pending: dict[Path, tuple[Root, MemoryStore]] = {}
        """Drafts whose successor is written and whose old memory is still to be marked."""


def keep(ls: TetherServer, root: Root, store: MemoryStore, draft: Path) -> None:
    """Keep the supersede of ``draft`` (whose old memory could not be marked) to finish."""
    ls.supersede_links.pending[draft_files.real(draft)] = (root, store)


def mark(
    ls: TetherServer,
    root: Root,
    store: MemoryStore,
    written: Memory,
    *,
    wait_ms: int | None = None,
) -> bool:
    """Mark the memory ``written`` supersedes so, if both are as a supersede leaves them (the
    successor active in the index, the old one active with other text); True when it was
    marked. :class:`NotIndexed` when the successor is not in the index while the old one is
    active. With ``wait_ms``, the write waits at most that long for another connection
    holding the index (then :class:`StoreBusy` or a busy :class:`sqlite3.OperationalError`)."""
    new = store.find(written.id)
    if new is None and written.supersedes and written.supersedes != written.id:
        old = store.find(written.supersedes)
        if old is not None and old.status == "active":
            raise NotIndexed(f"the store has not read {written.id} in yet, busy elsewhere")
    if new is None or new.status != "active" or not new.supersedes or new.supersedes == new.id:
        return False
    old = store.find(new.supersedes)
    if old is not None and old.status != "active" and old.superseded_by != new.id:
        ls.warn_shown_once(  # never a silent skip: the successor names a memory left as it is
            f"not marked {new.id} {old.id} {old.status}",
            f"memory {old.id} was not marked superseded by {new.id}: {not_active(old)}",
        )
        return False
    if old is None or old.status != "active" or old.content_hash == new.content_hash:
        return False
    waited = contextlib.nullcontext() if wait_ms is None else waiting_at_most(store.conn, wait_ms)
    with waited:
        store.update_fields(old.id, {"status": "superseded", "superseded_by": new.id})
    root.usage.acted(store, old.id)
    root.bump()
    ls.show_info(f"Memory {old.id} is now superseded by {new.id}.")
    return True


def finish(ls: TetherServer) -> None:
    """Finish each kept supersede whose store is free now; publish again where one was."""
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
        except NotIndexed as error:
            if held_elsewhere(store):
                continue  # taken again meanwhile: that is why
            _not_indexed(ls, store, draft, error)
        except StoreBusy:
            continue  # the index held a moment by another connection: the next poll
        except sqlite3.Error as error:
            if is_busy(error):
                continue
            ls.warn(f"the supersede of {draft} could not be finished ({error}); save it again")
        except (TetherError, OSError) as error:
            ls.warn(f"the supersede of {draft} could not be finished ({error}); save it again")
        del ls.supersede_links.pending[draft]
    for root in done.values():
        diagnostics.republish(ls, root)


def _not_indexed(ls: TetherServer, store: MemoryStore, draft: Path, error: NotIndexed) -> None:
    """Tell once that the successor of ``draft`` stays out of the index with the store free
    (so no later poll would finish it), and what to do."""
    memory = store.folder.path / draft.name
    ls.warn_shown_once(
        f"unindexed {draft}",
        f"the supersede saved from {draft} is not finished: {memory} is not in the "
        f"{store.scope} store's index ({error}); run `tether doctor` to see why, then save the "
        "draft again",
    )


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


def _finish_one(ls: TetherServer, root: Root, store: MemoryStore, draft: Path) -> bool:
    """Mark the old memory of ``draft``'s supersede; True when it was marked. The draft is
    removed after, when no editor has it open and nothing of the person's is left in it."""
    text = _successor_text(store, draft)
    if text is None:
        return False  # saved since, rewritten or already done: nothing half-done is left
    parsed = frontmatter.parse(text, draft)
    written = memory_from_parsed(parsed, store.folder.path / draft.name, fallback_created=now_iso())
    if not mark(ls, root, store, written, wait_ms=COUNT_WAIT_MS):  # never hold up the loop
        return False
    if editor_copy(ls.workspace, draft.as_uri()) is None:
        draft_files.drop_if_left(ls, draft, store)
    return True
