"""The memory operations behind the tools, as plain functions over a :class:`Workspace`.

Each takes the tool's arguments, checks them with messages that name the argument and say
what to do, calls the same engine the CLI uses and returns JSON-ready data. Problems are raised
as :class:`recall.errors.TetherError`; the tool layer turns them into MCP tool errors.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING, Any

from mcp_server import arguments, results
from mcp_server.gone_anchors import hits_tree, with_gone_anchors
from mcp_server.guard_keeping import keeps_the_guard
from mcp_server.limits import LIST_LIMIT, LIST_MAX, RECALL_LIMIT, RECALL_MAX
from mcp_server.query_notes import empty_query_note
from recall.agent_text import masked_file
from recall.anchors.carry import carry_anchors
from recall.anchors.guards import carried_guard, check_guard
from recall.anchors.suggest import anchor_fields
from recall.anchors.write import record_anchors
from recall.errors import BadInput
from recall.known_paths import missing_notes, touched_notes
from recall.lifecycle.disuse import archived_by_disuse, as_seen, seen_state
from recall.lifecycle.links import left_superseded
from recall.lifecycle.references import (
    named_by_person,
    replacement_files,
    with_given_files,
    with_lifecycle_keys,
)
from recall.locations import PROJECT
from recall.model import CATEGORIES, STATUSES
from recall.newest_first import newest_first
from recall.policy.usage import counters, record_action
from recall.repo import git_user_name
from recall.same_summary import refuse_same_summary
from recall.store.changes import refuse_superseding

if TYPE_CHECKING:
    from mcp_server.workspace import Workspace
    from recall.model import Memory
    from recall.store import MemoryStore

WRITE_SCOPES = ("project", "global")
READ_SCOPES = (*WRITE_SCOPES, "all")

log = logging.getLogger("mcp_server")
_file = partial(masked_file, notice=log.warning)  # a masked memory's file, said in the log


# -- reading ---------------------------------------------------------------------------------


def recall(
    ws: Workspace, *, prompt: str | None, files: list[str] | None, limit: int = RECALL_LIMIT
) -> dict[str, Any]:
    """Rank memories for the files being worked on and the task; one turn of the session.

    What it returns lands in the agent's context as an injection does, so it passes the same
    trust gate (recall.policy.trust): with others' memories held back, those are left out, and
    ``held_back`` says how many of the ranked ones were. Every memory returned counts as
    surfaced once, as the CLI and the hooks count it. A file given that is not a file of the
    repository (a typo, a file renamed since) or is a folder is said in ``notes``, with the
    closest names, as ``tether recall`` says it: recall ranks by the files that exist. A hit
    whose anchored symbols the code no longer defines lists them in ``anchors_gone``
    (:mod:`mcp_server.gone_anchors`).
    """
    from recall.policy.trust import Gate
    from recall.ranking.query import RecallQuery, Touch
    from recall.service import build_recaller, record_shown

    arguments.limit(limit, RECALL_MAX)
    prompt = prompt.strip() if prompt else None
    if not prompt and not files:
        raise BadInput("give a prompt, files, or both: recall ranks memories by them")
    stores = ws.stores()
    project = next((s for s in stores if s.scope == "project"), None)
    if files and project is None:
        ws.project()  # raises what to do: files are only known inside a repository
    touches: tuple[Touch, ...] = ()
    notes: list[str] = []
    if project is not None:
        touches = tuple(Touch(path, "edit") for path in arguments.paths(project, files or []))
        # A path no file answers to finds nothing (recall ranks by the files that exist): say so.
        notes = touched_notes(project.repo_root, [touch.path for touch in touches])
    gate = Gate(project, log.warning)
    # Genome notices (a shallow clone, say) go to the server's log on stderr, not the result.
    recaller = build_recaller(
        stores, project, notice=log.warning, genome_notice=log.info, kept=ws.engines
    )
    # Held back, others' memories would take places in the ranking: rank as many as may be
    # asked for, so that up to ``limit`` of the allowed ones fill the result.
    found = recaller.recall(RecallQuery(touches, prompt, limit=limit if gate.open else RECALL_MAX))
    allowed = gate.hits(found.hits)
    hits = allowed[:limit]
    record_shown(stores, hits, session=ws.session_id, origin="mcp")
    # anchors the code no longer defines, looked up in the genome recall ranked with, their
    # files read from the working tree where it holds them otherwise than the index read them
    tree = hits_tree(hits, recaller.repo)
    done = {
        "results": [
            with_gone_anchors(
                results.hit(h, _file(stores, h.scope, h.memory)), h, recaller.repo, tree
            )
            for h in hits
        ],
        "query": found.query_text,
        "held_back": len(found.hits) - len(allowed),
    }
    if prompt and not found.query_text:
        notes.append(empty_query_note(prompt, bool(touches)))
    if notes:
        done["notes"] = notes
    return _with_skipped(done, stores, ws)


def get(ws: Workspace, *, memory_id: str) -> dict[str, Any]:
    """A memory's whole card, with the state of each of its anchored symbols (``anchor_states``,
    and ``anchor_suggestions`` for a gone one whose file defines names spelt close to it) as
    ``tether show --json`` gives them; reading the details counts as acting on it."""
    from recall.anchors.states import state_fields, states_of
    from recall.anchors.tree_reads import tree_reads
    from recall.repo_signals import card_genome

    store, memory = ws.find(arguments.memory_id(memory_id))
    if store.exists:
        record_action(store.conn, memory.id)
    data = {
        **results.card(memory, store.scope, _file([store], store.scope, memory)),
        "path": str(store.path_of(memory.id)),
        "usage": counters(store.conn, memory.id),
    }
    hidden = archived_by_disuse(store.conn) if store.exists else {}
    data.update(seen_state(memory, hidden))  # as `tether list` and `tether show --json` say it
    # where its anchored symbols are now, as `tether show --json` says it; the genome's
    # notices (a refresh's) go to the server's log, as recall's do
    genome = card_genome(store, memory, notice=log.info) if memory.anchors else None
    # each anchor whose file the working tree holds otherwise than the index read it is
    # resolved there, as `tether show` does
    tree = tree_reads(genome, memory.anchors)
    data.update(state_fields(states_of(memory.anchors, genome, tree=tree)))
    return data


def list_memories(
    ws: Workspace,
    *,
    file: str | None = None,
    category: str | None = None,
    status: str = "active",
    scope: str = "all",
    limit: int = LIST_LIMIT,
) -> dict[str, Any]:
    """Memories filtered by file (or folder), category and status, newest first across stores.

    As ``tether list`` shows them to this user: one archived by disuse lists as archived
    (``archived_by: disuse``), not active; one a person archived says ``archived_by: person``.
    """
    arguments.choice(scope, READ_SCOPES, "scope")
    arguments.choice(status, (*STATUSES, "all"), "status")
    if category is not None:
        arguments.choice(category, CATEGORIES, "category")
    arguments.limit(limit, LIST_MAX)
    if file is not None and not file.strip():
        raise BadInput(
            "file is empty; give a file or folder inside the repository, or leave file out "
            "to list every memory"
        )
    found: list[tuple[Memory, dict[str, Any]]] = []
    notes: list[str] = []
    stores = ws.stores(scope)
    outside = ws.no_project_notes(stores) if file is not None and scope == "all" else []
    # a file's earlier names come from the project's history, for every store's memories
    history = next((store for store in stores if store.scope == PROJECT), None)
    for store in stores:
        wanted = arguments.path(store, file, "file") if file is not None else None
        listed, hidden = as_seen(
            store, file=wanted, category=category, status=status, history=history
        )
        found.extend(
            (m, results.listed(m, store.scope, hidden, _file([store], store.scope, m)))
            for m in listed
        )
        if wanted is not None and store.scope == PROJECT and not notes:
            notes = missing_notes(store.repo_root, [wanted])
    found = newest_first(found, lambda item: item[0])  # one listing, then cut to the limit
    done: dict[str, Any] = {
        "memories": [entry for _, entry in found[:limit]],
        "total": len(found),
        "truncated": len(found) > limit,
    }
    if notes and not found:  # nothing names it, and no file answers to it: a typo, most likely
        done["notes"] = notes
    if outside:
        done["notes"] = [*outside, *done.get("notes", [])]
    return _with_skipped(done, stores, ws)


def _with_skipped(done: dict[str, Any], stores: list[MemoryStore], ws: Workspace) -> dict[str, Any]:
    """``done`` with ``skipped``: the memory files of ``stores`` that could not be loaded (a
    hand edit that broke one), so that a memory missing from the answer is said to be missing,
    as the CLI says it on stderr; none: ``done`` as it is. A store read while another process
    held it is said in ``notes`` (:meth:`Workspace.busy_notes`), and so is one whose memory
    folder's name a file has taken (:meth:`Workspace.folder_notes`)."""
    busy = ws.busy_notes(stores) + ws.folder_notes(stores)
    if busy:
        done = {**done, "notes": [*done.get("notes", []), *busy]}
    skipped = [
        {"path": str(p.path), "line": p.line, "message": p.message}
        for store in stores
        if store.exists
        for p in store.problems()
    ]
    return {**done, "skipped": skipped} if skipped else done


# -- writing ---------------------------------------------------------------------------------


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
    store = ws.project() if scope == "project" else ws.global_store()
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
        refuse_same_summary(
            store.conn, draft, lambda memory_id: f"memory_supersede with id {memory_id!r}"
        )
    written = results.written(store.remember(draft))
    return _with_notes(written, anchor_notes=notes, file_notes=file_notes)


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
    store, memory = ws.find(arguments.memory_id(memory_id))
    if memory.guard and memory.status == "active":
        raise BadInput(
            f"memory {memory.id} is guarded: an agent cannot take it out of recall; ask a "
            f"person to run `tether archive {memory.id}` (or `tether unguard {memory.id}`)"
        )
    changed = memory.status != "archived"
    left = None
    if changed:
        memory = store.set_status(memory.id, "archived", allowed_from=("active",))
        left = left_superseded(store, memory.id, "archived")
    done = {"id": memory.id, "scope": store.scope, "status": memory.status, "changed": changed}
    if left is not None:  # the memory it replaced is out of recall with nothing in its place
        done["left_superseded"], done["note"] = left
    return done
