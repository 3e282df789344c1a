"""The memory operations behind the tools that read (recall, get, list), as plain functions
over a :class:`Workspace`; those that write are in :mod:`mcp_server.writing`.

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
from mcp_server.limits import LIST_LIMIT, LIST_MAX, RECALL_LIMIT, RECALL_MAX
from mcp_server.query_notes import empty_query_note
from recall.agent_text import masked_file
from recall.card_facts import card_facts
from recall.errors import BadInput
from recall.known_paths import missing_notes
from recall.lifecycle.disuse import archived_by_disuse, as_seen, seen_state
from recall.locations import PROJECT
from recall.model import CATEGORIES, STATUSES
from recall.newest_first import newest_first
from recall.policy.usage import counters, record_action
from recall.touched_files import absent_notes, linked_touches, recalled

if TYPE_CHECKING:
    from mcp_server.workspace import Workspace
    from recall.model import Memory
    from recall.store import MemoryStore

WRITE_SCOPES = ("project", "global")
READ_SCOPES = (*WRITE_SCOPES, "all")

log = logging.getLogger("mcp_server")
_file = partial(masked_file, notice=log.warning)  # a masked memory's file, said in the log


def recall(
    ws: Workspace, *, prompt: str | None, files: list[str] | None, limit: int = RECALL_LIMIT
) -> dict[str, Any]:
    """Rank memories for the files being worked on and the task; one turn of the session.

    What it returns lands in the agent's context as an injection does, so it passes the same
    trust gate (recall.policy.trust): with others' memories held back, those are left out, and
    ``held_back`` says how many of the ranked ones were. Every memory returned counts as
    surfaced once, as the CLI and the hooks count it. The files given are read as ``tether
    recall --file`` reads them (:mod:`recall.touched_files`): a link inside the repository
    stands for its target (one leading outside it is refused); one missing from the working tree
    that memories name (deleted, or still to come) recalls them all the same, and ``notes``
    says so; one no file answers to otherwise (a typo, a file renamed since) or a folder is said
    there with the closest names, since it finds nothing. A hit
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
        # a link inside the repository stands for its target, as for `tether recall --file`
        touches = linked_touches(
            project.repo_root, [(path, "edit") for path in arguments.paths(project, files or [])]
        )
        # a file not on disk: recalled for the memories naming it, else a typo; said either way
        notes = absent_notes(project.repo_root, stores, [touch.path for touch in touches])
    gate = Gate(project, log.warning)
    # Genome notices (a shallow clone, say) go to the server's log on stderr, not the result.
    recaller = build_recaller(
        stores, project, notice=log.warning, genome_notice=log.info, kept=ws.engines
    )
    # Held back, others' memories would take places in the ranking: rank as many as may be
    # asked for, so that up to ``limit`` of the allowed ones fill the result.
    found = recalled(
        recaller, RecallQuery(touches, prompt, limit=limit if gate.open else RECALL_MAX)
    )
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
    """A memory's whole card: its fields, ``guard`` among them, and what ``tether show --json``
    says beside them, from the same function (:mod:`recall.card_facts`): ``confirmed``,
    ``former_files``, ``files_now``, ``spot_check``, the state of each of its anchored symbols
    (``anchor_states``, and ``anchor_suggestions`` for a gone one whose file defines names spelt
    close to it); reading the details counts as acting on it."""
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
    # the genome's notices (a refresh's) go to the server's log, as recall's do
    data.update(card_facts(store, memory, notice=log.info).fields())
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
    return _with_skipped(done, stores, ws, every_store=scope == "all")


def _with_skipped(
    done: dict[str, Any], stores: list[MemoryStore], ws: Workspace, *, every_store: bool = True
) -> dict[str, Any]:
    """``done`` with ``skipped``: the memory files of ``stores`` that could not be loaded (a
    hand edit that broke one), so that a memory missing from the answer is said to be missing,
    as the CLI says it on stderr; none: ``done`` as it is. A store read while another process
    held it is said in ``notes`` (:meth:`Workspace.busy_notes`), and so is one whose memory
    folder's name a file has taken (:meth:`Workspace.folder_notes`), and, for a read of
    ``every_store``, the user-wide store left out (:meth:`Workspace.home_notes`)."""
    busy = ws.busy_notes(stores) + ws.folder_notes(stores)
    if every_store:
        busy += ws.home_notes(stores)
    if busy:
        done = {**done, "notes": [*done.get("notes", []), *busy]}
    skipped = [
        {"path": str(p.path), "line": p.line, "message": p.message}
        for store in stores
        if store.exists
        for p in store.problems()
    ]
    return {**done, "skipped": skipped} if skipped else done
