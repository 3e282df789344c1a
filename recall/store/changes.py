"""Changes to an existing memory: pin, status, supersede; and purging tombstones."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import TYPE_CHECKING

from recall.errors import BadInput, NothingToDo, StoreUnavailable
from recall.model import AUTO_DISTILLED, Memory
from recall.store.opening import recovering
from recall.store.writes import StoreWrites

if TYPE_CHECKING:
    from collections.abc import Callable

    from recall.store.results import WriteResult


def refuse_deleted(memory: Memory, verb: str) -> None:
    """Refuse to ``verb`` (confirm, keep, pin, guard) a deleted memory: it is out of every
    listing and recall, and marking or vouching for it would say otherwise (:class:`BadInput`,
    with the command that brings it back)."""
    if memory.status == "deleted":
        raise BadInput(
            f"memory {memory.id} is deleted, so there is nothing to {verb}: "
            f"`tether restore {memory.id}` brings it back, then {verb} it"
        )


def refuse_retired(memory: Memory, verb: str) -> None:
    """Refuse to ``verb`` (pin, guard) a deleted or superseded memory (:class:`BadInput`, with
    the command that brings it back): the mark would sit on a memory no recall shows and no
    edit is asked about. One a person archived may be marked: it comes back with the mark."""
    refuse_deleted(memory, verb)
    if memory.status == "superseded":
        by = f" by {memory.superseded_by}" if memory.superseded_by else ""
        raise BadInput(
            f"memory {memory.id} is superseded{by}, so there is nothing to {verb}: "
            f"`tether restore {memory.id}` brings it back, then {verb} it (or {verb} its "
            "replacement)"
        )


def archived_note(memory: Memory, verb: str) -> str | None:
    """What to say when a person's archived ``memory`` was marked all the same (``verb``: pin,
    guard): it stays out of recall until restored. None for a memory not archived."""
    if memory.status != "archived":
        return None
    done = {"pin": "pinned", "guard": "guarded"}[verb]
    return (
        f"{memory.id} is {done}, but it is archived, so it stays out of recall until "
        f"restored (`tether restore {memory.id}`)"
    )


CHAIN_STEPS = 100
"""Replacements followed at most from a superseded memory to the one that stands for it now:
far beyond any real chain, and a bound on a loop a hand edit could make."""


def refuse_inactive_supersede(
    memory: Memory, get: Callable[[str], Memory | None] | None = None
) -> None:
    """Refuse to supersede a memory that is not active (:class:`BadInput`, with the way out:
    the replacement standing for a superseded one now, found through ``get`` along the chain,
    else the command that brings it back)."""
    if memory.status == "active":
        return
    back = f"`tether restore {memory.id}` brings it back, then supersede it"
    if memory.status == "superseded" and memory.superseded_by:
        by = now = memory.superseded_by
        for _ in range(CHAIN_STEPS if get is not None else 0):
            later = get(now) if get is not None else None
            if later is None or later.status != "superseded" or not later.superseded_by:
                break
            now = later.superseded_by
        standing = "its replacement" if now == by else f"the memory replacing it now, {now}"
        way = f"supersede {standing} (`tether supersede {now} TEXT`), or {back}"
        status = f"superseded by {by}"
    else:
        way, status = back, memory.status
    raise BadInput(f"memory {memory.id} is {status}; only active memories can be superseded: {way}")


def refuse_superseding(memory: Memory, get: Callable[[str], Memory | None]) -> None:
    """Refuse to supersede a memory that is not active, as every front end says it: one
    awaiting review names ``tether pending confirm`` (:func:`refuse_pending`), any other
    :func:`refuse_inactive_supersede`'s way out. Called before anything else is weighed, so
    that the reason given is the first that holds."""
    refuse_pending(memory, "supersede")
    refuse_inactive_supersede(memory, get)


DELETED_FROM_KEY = "deleted_from"
"""Written as ``deleted_from: pending`` when a pending memory is deleted (``tether pending
drop``, ``tether delete``, cleanup's delete): ``tether restore`` brings it back to review,
not to recall. Taken out again when it is restored."""


def refuse_pending(memory: Memory, verb: str) -> None:
    """Refuse to ``verb`` (confirm, keep, archive, restore, supersede) a memory pending review
    (:class:`BadInput`, naming the command that reviews it): only ``tether pending confirm``
    makes a proposal active, and only ``tether pending drop`` (or a delete) drops it."""
    if memory.status == "pending":
        raise BadInput(
            f"memory {memory.id} is pending review, so there is nothing to {verb}: "
            f"`tether pending confirm {memory.id}` makes it active (`tether pending drop "
            f"{memory.id}` drops it)"
        )


class StatusChanges(StoreWrites):
    """Pinning, moving between statuses, superseding, purging."""

    @recovering
    def set_pinned(self, ref: str, pinned: bool) -> Memory:
        """Pin or unpin a memory; NothingToDo when it already is."""
        with self.changing(ref) as memory:
            if pinned:
                refuse_retired(memory, "pin")
            if memory.pinned == pinned:
                state = "pinned" if pinned else "unpinned"
                raise NothingToDo(f"memory {memory.id} is already {state}")
            updated = self.update_fields(memory.id, {"pinned": pinned})
            if pinned:
                self.lift_disuse(memory.id)
        return updated

    def lift_disuse(self, memory_id: str) -> None:
        """Bring a memory this user's disuse archived back for good, its counts kept: a person
        pinned or guarded it, an action, so unpinning it later must not hide it again (see
        :mod:`recall.lifecycle.disuse`). Nothing to do for any other memory."""
        self.write_per_user(
            lambda conn: conn.execute(
                "UPDATE usage SET archived_by_disuse = 0, archived_at = NULL "
                "WHERE memory_id = ? AND archived_by_disuse = 1",
                (memory_id,),
            )
        )

    @recovering
    def set_status(self, ref: str, status: str, *, allowed_from: tuple[str, ...]) -> Memory:
        """Move a memory to ``status`` if it is currently in one of ``allowed_from``."""
        with self.changing(ref) as memory:
            if memory.status == status:
                raise NothingToDo(f"memory {memory.id} is already {status}")
            if memory.status == "pending" and "pending" not in allowed_from:
                verb = {"active": "restore", "archived": "archive"}.get(status, status)
                refuse_pending(memory, verb)
            if memory.status not in allowed_from:
                raise BadInput(
                    f"memory {memory.id} is {memory.status}; only {'/'.join(allowed_from)} "
                    f"memories can become {status}"
                )
            changes: dict[str, object] = {"status": status}
            if status == "active" and memory.superseded_by:
                from recall.frontmatter import REMOVE

                changes["superseded_by"] = REMOVE
            if memory.status == "pending" and status == "deleted":
                changes[DELETED_FROM_KEY] = "pending"
            return self.update_fields(memory.id, changes)

    @recovering
    def unlink_replacements(self, memory_id: str) -> list[str]:
        """Remove the ``supersedes`` line of every active memory of this store that names
        ``memory_id``, and return their ids: a memory brought back is no longer replaced, and
        an active memory naming it would keep it out of recall. A replacement that is no
        longer active hides nothing, so its link is kept."""
        query = "SELECT id FROM memories WHERE supersedes = ? AND status = 'active' ORDER BY id"
        if not self.conn.execute(query, (memory_id,)).fetchone():
            return []  # nothing to write: a read-only store is not asked to be writable
        from recall.frontmatter import REMOVE

        with self._writable():  # the replacements as they are under the lock, not as seen
            self._refresh_if_folder_changed()
            found = [row["id"] for row in self.conn.execute(query, (memory_id,))]
            for replacement in found:
                self.update_fields(replacement, {"supersedes": REMOVE})
        return found

    @recovering
    def supersede(self, old_ref: str, draft: Memory) -> tuple[WriteResult, Memory]:
        """Write ``draft`` as the replacement of an active memory and link the two both ways.

        The old memory is checked and both files written under one hold of the writers'
        lock: another writer superseding or archiving it at the same time is refused, or
        refuses this one, never both done."""
        with self.changing(old_ref) as old:
            result, updated = self._supersede_held(old, draft)
        self.fill_vectors()
        return result, updated

    def _supersede_held(self, old: Memory, draft: Memory) -> tuple[WriteResult, Memory]:
        """:meth:`supersede`'s check and writes, the writers' lock held and ``old`` read
        under it."""
        refuse_superseding(old, self.find)
        draft = draft.with_changes(supersedes=old.id)
        result = self.remember(draft, vectors=False)  # made once both files are written
        if result.duplicate_of:
            if result.duplicate_of == old.id:
                raise BadInput(
                    f"the new text is the same as memory {old.id}; nothing to supersede: to tie "
                    f"it to other files or code, edit `files:` or `anchors:` in "
                    f"{self.path_of(old.id)} and `tether confirm {old.id}`, or give the "
                    "replacement a text of its own"
                )
            if result.duplicate_status in ("superseded", "archived", "deleted"):
                raise BadInput(
                    f"the new text duplicates memory {result.duplicate_of}, which is "
                    f"{result.duplicate_status}; `tether restore {result.duplicate_of}` brings it "
                    f"back (then `tether archive {old.id}` if it replaces {old.id}), or supersede "
                    f"{old.id} with a text of its own"
                )
            raise BadInput(
                f"the new text duplicates memory {result.duplicate_of}; supersede with that one "
                f"(`tether supersede {old.id}` cannot link an existing memory)"
            )
        try:
            updated = self.update_fields(
                old.id, {"status": "superseded", "superseded_by": result.id}
            )
        except BaseException:
            # Half a supersede (a successor the old memory does not point to, which takes it
            # out of recall all the same) is worse than none, whatever stopped it (a full disk,
            # an old file that cannot be rewritten): take the new memory back out first.
            with self._locked(), contextlib.suppress(sqlite3.Error, StoreUnavailable):
                self._unwrite(result.path.name)
                self.refresh()
            raise
        return result, updated

    @recovering
    def purge(self, *, source: str | None = None) -> list[str]:
        """Delete the files of tombstoned memories (or of every memory from ``source``). The
        tombstone of a dropped auto-distill proposal is kept by a plain purge: it is what stops
        distill from proposing the same memory again (``source`` names them to remove them)."""
        with self._writable():
            self.refresh()
            if source:
                found = self.conn.execute(
                    "SELECT id, name FROM memories WHERE source = ?", (source,)
                ).fetchall()
            else:
                found = self.conn.execute(
                    "SELECT id, name FROM memories WHERE status = 'deleted' AND source != ?",
                    (AUTO_DISTILLED,),
                ).fetchall()
            for row in found:
                self.folder.remove(row["name"])
            self.refresh()
        return [row["id"] for row in found]
