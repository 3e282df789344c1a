"""What the browser does to memories, through the stores' normal paths and nothing else.

Every change goes through :class:`~recall.store.MemoryStore` (atomic file write, index kept in
step), the same calls the CLI makes; actions that count as acting on a memory record it like
their CLI twins. Failures are raised as :class:`~recall.errors.TetherError` for the caller to
show.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Final

from recall import secrets_scan, unloaded
from recall.anchors.guards import carried_guard
from recall.display import plural
from recall.errors import BadInput, TetherError
from recall.lifecycle.disuse import archived_by_disuse, bring_back, restored_message
from recall.lifecycle.links import left_superseded
from recall.lifecycle.references import named_by_person_of, with_given_files
from recall.lifecycle.stats import Overview
from recall.lifecycle.stats import overview as stats_overview
from recall.model import Memory
from recall.newest_first import newest_first
from recall.policy.usage import counters, record_action
from recall.repo import git_user_name
from recall.same_summary import refuse_same_summary, supersede_command
from recall.search import search
from recall.store import MemoryStore
from recall.store.changes import refuse_inactive_supersede
from recall.text_checks import refuse_blank_details
from recall.unloaded import SKIPPED_NAMED

from .view import Entry, View, matches

# The statuses each move may start from, as ``tether restore`` and ``tether delete`` allow.
RESTORE_FROM: Final = ("archived", "deleted", "superseded")
DELETE_FROM: Final = ("active", "pending", "archived", "superseded")

FAILURES: Final = (TetherError, sqlite3.Error, OSError)
"""What an action may fail with: shown to the person in the browser, never a crash."""

SEARCH_LIMIT: Final = 200
"""Most search hits per store: pages of rows to scroll, and still one quick FTS query."""


@dataclass(frozen=True)
class Outcome:
    """What an action did, in words, and the memory the cursor should rest on afterwards."""

    message: str
    memory_id: str


@dataclass(frozen=True)
class Card:
    """Everything the detail card shows about one memory."""

    memory: Memory
    scope: str
    status: str  # as this user sees it (``archived by disuse`` included)
    path: Path
    usage: dict[str, object]


class Browser:
    """The memories of one or more stores, and the actions a person takes on them."""

    def __init__(self, stores: Sequence[MemoryStore], *, author: str | None = None) -> None:
        self.stores = {store.scope: store for store in stores}
        self._author = author
        self._entries: list[Entry] = []
        self._disused: dict[str, set[str]] = {}  # scope -> ids this user's disuse archived
        self.unreadable: list[str] = []  # memory files left out by the last load, with why
        self._left_out: dict[Path, tuple[int, ...] | None] = {}
        """The memory files the last load left out, each as it was then (:func:`_as_found`)."""

    # -- reading ---------------------------------------------------------------------------

    def load(self) -> None:
        """Re-read every store (picking up files changed on disk) and keep every memory."""
        entries: list[Entry] = []
        self._disused = {}
        self._left_out = {}  # a load that fails is not tried again by the look for changes
        for scope, store in self.stores.items():
            if store.exists:
                store.refresh()
            self._disused[scope] = set(archived_by_disuse(store.conn)) if store.exists else set()
            entries.extend(self._entry(m, scope) for m in store.list(status="all"))
        self._entries = newest_first(entries, lambda entry: entry.memory)  # both stores as one
        left_out: list[tuple[Path, str]] = []
        for scope, store in self.stores.items():
            if not store.exists:
                continue
            left_out += [
                (
                    problem.path,
                    f"{problem.path.name} ({scope}, line {problem.line}: {problem.message})",
                )
                for problem in store.problems()
            ]
            left_out += [
                (store.folder.path / name, f"{name} ({scope}: {what})")
                for name, what in unloaded.skipped(store.folder.path)
            ]
        self.unreadable = [why for _path, why in left_out]
        self._left_out = {path: _as_found(path) for path, _why in left_out}

    def unreadable_changed(self) -> bool:
        """Whether a memory file the last load left out was changed, replaced or removed
        since (one ``lstat`` each): then a load reads it again."""
        return any(_as_found(path) != then for path, then in self._left_out.items())

    def unreadable_message(self) -> str:
        """What to say of the memory files the last load left out ("" when none): how many,
        the first :data:`~recall.unloaded.SKIPPED_NAMED` by name and why, as ``tether list``
        names them, so that a memory missing from the table is never a silent loss."""
        if not self.unreadable:
            return ""
        count = len(self.unreadable)
        named = "; ".join(self.unreadable[:SKIPPED_NAMED])
        more = count - SKIPPED_NAMED
        rest = f"; and {more} more: `tether doctor` lists them all" if more > 0 else ""
        return (
            f"{plural(count, 'memory file')} could not be read and "
            f"{'is' if count == 1 else 'are'} not shown: {named}{rest} (fix the file; it is "
            "read again once it changes)"
        )

    def _entry(self, memory: Memory, scope: str) -> Entry:
        return Entry(memory, scope, memory.id in self._disused.get(scope, set()))

    def rows(self, view: View) -> list[Entry]:
        """The entries the view shows: search hits best first, else every memory newest first."""
        if not view.search.strip():
            return [entry for entry in self._entries if matches(entry, view)]
        hits = []
        for scope, store in self.stores.items():
            if view.scope not in ("all", scope):
                continue
            found = search(store.conn, view.search, limit=SEARCH_LIMIT, status=view.status)
            hits.extend((hit, scope) for hit in found)
        hits.sort(key=lambda item: (item[0].matched_by != "words", item[0].score))
        entries = (self._entry(hit.memory, scope) for hit, scope in hits)
        return [entry for entry in entries if matches(entry, view)]

    def _current(self, entry: Entry) -> tuple[MemoryStore, Memory]:
        """The entry's store and its memory as it is now (the row may be out of date)."""
        store = self.stores[entry.scope]
        return store, store.get(entry.memory.id)

    def card(self, entry: Entry) -> Card:
        """Open a memory: its card, counted as acting on it (like ``tether show``)."""
        store, memory = self._current(entry)
        if store.exists:
            record_action(store.conn, memory.id)
        return Card(
            memory,
            entry.scope,
            self._entry(memory, entry.scope).status_label,
            store.path_of(memory.id),
            counters(store.conn, memory.id),
        )

    def overview(self, today: date, scope: str = "all") -> Overview | None:
        """The numbers of the stores of ``scope`` (all: every one) that exist, added up; None
        when none exists yet."""
        stores = [
            store for each, store in self.stores.items() if store.exists and scope in ("all", each)
        ]
        return stats_overview([store.conn for store in stores], today) if stores else None

    # -- changing --------------------------------------------------------------------------

    def pin(self, entry: Entry) -> Outcome:
        """Pin a memory (ranks higher, never decays); counts as acting on it."""
        return self._set_pinned(entry, True)

    def unpin(self, entry: Entry) -> Outcome:
        """Unpin a memory; counts as acting on it."""
        return self._set_pinned(entry, False)

    def _set_pinned(self, entry: Entry, pinned: bool) -> Outcome:
        store, memory = self._current(entry)
        updated = store.set_pinned(memory.id, pinned)
        record_action(store.conn, memory.id)
        return Outcome(f"{'Pinned' if pinned else 'Unpinned'} {updated.id}", updated.id)

    def delete(self, entry: Entry) -> Outcome:
        """Tombstone a memory (``restore`` brings it back until ``tether purge``)."""
        store, memory = self._current(entry)
        updated = store.set_status(memory.id, "deleted", allowed_from=DELETE_FROM)
        said = f"Deleted {updated.id} (restore brings it back)"
        left = left_superseded(store, updated.id, "deleted")
        return Outcome(f"{said}; {left[1]}" if left is not None else said, updated.id)

    def restore(self, entry: Entry) -> Outcome:
        """Bring an archived (by a person or by disuse), deleted or superseded memory back, as
        ``tether restore`` does (from any status but disuse, that counts as acting on it)."""
        store, memory = self._current(entry)
        if memory.status == "pending":
            raise BadInput(
                f"memory {memory.id} is pending review; `tether pending confirm {memory.id}` "
                "makes it active"
            )
        restored = bring_back(store, memory, RESTORE_FROM)
        return Outcome(restored_message(restored), restored.memory.id)

    def check_supersedable(self, entry: Entry) -> Memory:
        """The entry's memory if it can be superseded (active), else BadInput saying why."""
        store, memory = self._current(entry)
        refuse_inactive_supersede(memory, store.find)
        return memory

    def supersede(self, entry: Entry, summary: str, details: str) -> Outcome:
        """Replace an active memory by a new one with the given text, linked both ways.

        The new memory keeps the old one's category, files (and which of them the person
        named), anchors, pin and guard (not in the global store, where a guard protects no file:
        the outcome says so); its text goes through the same checks as ``tether supersede``
        (details of whitespace only, a credential-shaped text and a summary another active
        memory holds differently are refused; for a credential the refusal says how to write it
        from a shell, as the browser has no ``--allow-secret``).
        """
        store, old = self._current(entry)
        refuse_blank_details(details, "details")
        override = (
            "if it is not a secret, supersede it from a shell (the browser has no way to say "
            f"so): `tether supersede {old.id} SUMMARY -c {old.category} --details TEXT "
            f"{secrets_scan.OVERRIDE_FLAG}`"
        )
        refused = secrets_scan.refusal(
            {"summary": summary, "details": details, "anchor": old.anchor},
            override=override,
        )
        if refused:
            raise BadInput(refused)
        draft = store.prepare_memory(
            summary=summary,  # as typed: the CLI keeps a summary's spaces too
            category=old.category,
            files=list(old.files),
            details=details,
            pinned=old.pinned,
            anchor=old.anchor,
            author=self._author if self._author is not None else git_user_name(store.repo_root),
            source="user",
            allow_secret=True,  # scanned above, with the browser's advice
        )
        # the same code, still guarded where a guard holds (unguard lifts it)
        guard, note = carried_guard(old, old.category, store.scope)
        if old.anchors or guard:
            draft = draft.with_changes(anchors=old.anchors, guard=guard)
        draft = with_given_files(draft, named_by_person_of(store, old))  # for a later repoint
        refuse_same_summary(store.conn, draft, supersede_command, other_than=old.id)
        result, updated = store.supersede(old.id, draft)
        record_action(store.conn, old.id)
        said = f"Wrote {result.id}; {updated.id} is now superseded by it"
        return Outcome(f"{said} ({note})" if note else said, result.id)


def _as_found(path: Path) -> tuple[int, ...] | None:
    """What tells one state of the entry at ``path`` from another (its inode, type and size,
    when it was last changed), without reading it; None when nothing is there."""
    try:
        st = path.lstat()
    except OSError:
        return None
    return (st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
