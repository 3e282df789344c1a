"""The memory operations behind the tools that write, as plain functions over a
:class:`Workspace`: a new memory, a supersede, a pin and an archive.

As :mod:`mcp_server.operations` does for reading, each checks the tool's arguments with
messages that name the argument, calls the same engine the CLI uses and returns JSON-ready
data; problems are raised as :class:`recall.errors.TetherError`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from mcp_server import arguments, results
from mcp_server.guard_keeping import keeps_the_guard
from mcp_server.operations import WRITE_SCOPES
from recall.anchors.carry import carry_anchors
from recall.anchors.guards import carried_guard, check_guard
from recall.anchors.suggest import anchor_fields
from recall.anchors.write import record_anchors
from recall.errors import BadInput
from recall.lifecycle.links import left_superseded
from recall.lifecycle.references import (
    named_by_person,
    replacement_files,
    with_given_files,
    with_lifecycle_keys,
)
from recall.model import CATEGORIES
from recall.policy.usage import record_action
from recall.repo import git_user_name
from recall.same_summary import refuse_same_summary
from recall.store.changes import refuse_superseding

if TYPE_CHECKING:
    from mcp_server.workspace import Workspace

log = logging.getLogger("mcp_server")


def write(
    ws: Workspace,
    *,
    summary: str,
    category: str,
    files: list[str],
    details: str | None = None,
    pin: bool = False,
    scope: str = "project",
    anchors: list[str] | None = None,
    guard: bool = False,
    allow_missing: bool = False,
) -> dict[str, Any]:
    """Write a new memory, or name the one that already holds the same knowledge.

    Its files (and its anchors' files) are checked as ``tether remember`` checks them: one of
    git's own files, a folder, or (unless ``allow_missing``) a file the repository never had
    is refused; a file renamed since is written as given, with a ``file_notes`` entry."""
    arguments.summary_line(summary)
    arguments.choice(category, CATEGORIES, "category")
    arguments.choice(scope, WRITE_SCOPES, "scope")
    details = arguments.details_text(details)
    arguments.no_secrets(summary, details, files, anchors)
    store = ws.project() if scope == "project" else ws.global_store(writing=True)
    symbols = arguments.symbols(store, anchors or [])
    paths = arguments.paths(store, files)
    file_notes = arguments.named_files(store, paths, symbols, allow_missing=allow_missing)
    given = list(paths)
    paths += [path for path in dict.fromkeys(p for p, _ in symbols) if path not in paths]
    draft = store.prepare_memory(
        summary=summary,
        category=category,
        files=paths,
        details=details,
        pinned=pin,
        author=git_user_name(store.repo_root),
        source="agent",
        symbols=[f"{path}::{name}" for path, name in symbols],
    )
    recorded, notes = record_anchors(store.repo_root, symbols)
    if recorded or guard:
        draft = draft.with_changes(
            anchors=recorded,
            guard=check_guard(
                guard,
                category,
                "guard: true",
                covers=bool(paths or recorded),
                scope=store.scope,
                scope_option='scope: "global"',
            ),
        )
    draft = with_given_files(draft, given)  # the files named, for a later repoint
    if store.exists:
        refuse_same_summary(store.conn, draft, _supersede_call)
    written = {**results.written(store.remember(draft)), **results.set_up(store)}
    return _with_notes(written, anchor_notes=notes, file_notes=file_notes)


def _supersede_call(memory_id: str) -> str:
    """How a refusal of a summary another memory holds names the call that changes that one."""
    return f"memory_supersede with id {memory_id!r}"


def supersede(
    ws: Workspace,
    *,
    old_id: str,
    summary: str,
    category: str | None = None,
    files: list[str] | None = None,
    details: str | None = None,
    pin: bool | None = None,
    anchors: list[str] | None = None,
    allow_missing: bool = False,
) -> dict[str, Any]:
    """Replace an active memory by a new one; the old one leaves recall, linked both ways.

    Category, files, the pin and the symbol anchors carry over unless given (``pin=False``
    drops the pin, ``anchors=[]`` the anchors; ``files`` without ``anchors`` carries the old
    anchors as the CLI does, :func:`recall.anchors.carry.carry_anchors`, each one followed to
    its new place or dropped said in ``anchor_notes``); the guard
    always: an agent cannot lift or narrow one (a person does, with ``unguard``), so a
    supersede that would (a category that takes none, the guarded files left out, anchors
    covering less of the guarded code) is refused; details do not (the new text stands on its own).
    The files and anchors given are checked as :func:`write` checks them.
    """
    arguments.summary_line(summary)
    if category is not None:
        arguments.choice(category, CATEGORIES, "category")
    details = arguments.details_text(details)
    arguments.no_secrets(summary, details, files, anchors)
    store, old = ws.find(arguments.memory_id(old_id, "old_id"))
    refuse_superseding(old, store.find)  # said before what its files would lose
    symbols = arguments.symbols(store, anchors or [])
    given = arguments.paths(store, files or [])
    named = named_by_person(with_lifecycle_keys(store, old)) if files is None else list(given)
    file_notes = arguments.named_files(store, given, symbols, allow_missing=allow_missing)
    recorded, notes, opened = old.anchors, [], None
    if anchors is not None:
        recorded, notes = record_anchors(store.repo_root, symbols)
    elif files is not None and old.anchors:
        # files named anew: an old anchor follows its definition or goes, and is said (one
        # that goes from a guard is refused below: an agent never narrows a guard)
        guarded = carried_guard(old, category or old.category, store.scope)[0]
        carry = carry_anchors(
            store, old.anchors, given, "'anchors'", guarded=guarded, notice=log.info
        )
        recorded, notes, opened = carry.anchors, carry.notes, carry.signals
    anchored = [anchor.path for anchor in recorded]
    if files is None:  # new anchors replace the old: a file there only for one goes with it
        paths = replacement_files(old, named, anchored, new_anchors=bool(anchors))
    else:
        paths = given + [path for path in dict.fromkeys(anchored) if path not in given]
    draft = store.prepare_memory(
        summary=summary,
        category=category or old.category,
        files=paths,
        details=details,
        pinned=old.pinned if pin is None else pin,
        author=git_user_name(store.repo_root),
        source="agent",
        symbols=[f"{path}::{name}" for path, name in symbols],
    )
    if recorded:  # the new text is about the same code, or the code given
        draft = draft.with_changes(anchors=recorded)
    draft = with_given_files(draft, named)  # the files named, for a later repoint
    refuse_same_summary(store.conn, draft, _supersede_call, other_than=old.id)
    keeps_the_guard(store, old, draft, opened=opened)
    # superseding does not lift a guard
    guard, note = carried_guard(old, draft.category, store.scope)
    if guard:
        draft = draft.with_changes(guard=True)
    result, updated = store.supersede(old.id, draft)
    record_action(store.conn, old.id)
    done = {**results.written(result), "supersedes": updated.id, "old_status": updated.status}
    done = _with_notes(done, anchor_notes=notes, file_notes=file_notes)
    return {**done, "guard_note": note} if note else done


def _with_notes(
    done: dict[str, Any], anchor_notes: list[str], **notes: list[str]
) -> dict[str, Any]:
    """``done`` with each of ``notes`` that holds any (an empty list is left out), and the
    anchor notes with the names closest to each anchor its file lacks, as the CLI gives them."""
    return {**done, **anchor_fields(anchor_notes), **{k: v for k, v in notes.items() if v}}


def pin(ws: Workspace, *, memory_id: str, pinned: bool = True) -> dict[str, Any]:
    """Pin (or unpin) a memory; pinning is acting on it. Already so: nothing changes. Pinning
    an archived one says it stays out of recall until restored, as ``tether pin`` does."""
    from recall.store.changes import archived_note

    store, memory = ws.find(arguments.memory_id(memory_id))
    changed = memory.pinned != pinned
    if changed:
        memory = store.set_pinned(memory.id, pinned)
        record_action(store.conn, memory.id)
    done = {"id": memory.id, "scope": store.scope, "pinned": memory.pinned, "changed": changed}
    note = archived_note(memory, "pin") if pinned else None
    return {**done, "note": note} if note is not None else done


def archive(ws: Workspace, *, memory_id: str) -> dict[str, Any]:
    """Hide an active memory from recall (reversible with ``tether restore``)."""
    store, seen = ws.find(arguments.memory_id(memory_id))
    with store.changing(seen.id) as memory:  # guarded as it is under the lock: a guard a
        if memory.guard and memory.status == "active":  # person set meanwhile holds
            raise BadInput(
                f"memory {memory.id} is guarded: an agent cannot take it out of recall; ask a "
                f"person to run `tether archive {memory.id}` (or `tether unguard {memory.id}`)"
            )
        changed = memory.status != "archived"
        if changed:
            memory = store.set_status(memory.id, "archived", allowed_from=("active",))
    left = left_superseded(store, memory.id, "archived") if changed else None
    done = {"id": memory.id, "scope": store.scope, "status": memory.status, "changed": changed}
    if left is not None:  # the memory it replaced is out of recall with nothing in its place
        done["left_superseded"], done["note"] = left
    return done
