"""``workspace/executeCommand``: the API behind the code actions, editor key bindings and tools.

Every command takes one object with camelCase keys (a bare string is read as ``memoryId``) and
returns JSON. Arguments are documented in ``docs/editors.md``. Malformed arguments are logged
and answered with error -32602 (Invalid params) naming what is wrong; a memory that cannot be
found or changed is an error response whose message says why; asking for what is already so
(pinning a pinned memory) answers ``{"changed": false, "message": ...}``. A command that writes
waits off the message loop while another process holds the store
(:mod:`lsp_server.command_runs`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from lsp_server import (
    capabilities,
    cards,
    diagnostics,
    draft_open,
    drafts,
    listing,
    recalling,
    store_busy,
)
from lsp_server.command_args import flag, text
from lsp_server.command_context import (
    acted,
    changed,
    find,
    root_and_doc,
    self_serve,
)
from lsp_server.command_runs import run, run_async, run_write
from lsp_server.guard_words import guard_refusal
from lsp_server.roots import Root
from lsp_server.server import TetherServer
from recall.errors import BadInput, NotFound, StoreBusy
from recall.lifecycle.disuse import bring_back
from recall.lifecycle.links import left_superseded
from recall.policy.usage import counters

# status a command moves a memory to, and the statuses it may come from (as the CLI's)
TRANSITIONS = {
    "archive": ("archived", ("active",)),
    "restore": ("active", ("archived", "deleted", "superseded")),
}

INDEXING_WAIT_SECONDS = 30.0
"""How long a reindex waits for a background genome refresh of the same index to end (the
refresh holds a connection to the index being replaced); past it the user is told to retry
rather than left waiting on a request."""

# -- the commands ----------------------------------------------------------------------------


async def _show(ls: TetherServer, obj: dict[str, Any]) -> dict[str, Any]:
    root, store, memory = find(ls, obj)
    acted(root, store, memory.id)
    self_serve(ls, root, "show", obj)
    path = store.path_of(memory.id)
    data = {
        **memory.to_dict(),
        "scope": store.scope,
        "path": str(path),
        "usage": counters(store.conn, memory.id),
    }
    if flag(obj, "display"):
        opened = False
        if capabilities.can_show_document(ls.client_capabilities):
            opened = await draft_open.show_document(ls, types.ShowDocumentParams(path.as_uri()))
        if not opened:
            facts = cards.CardFacts(
                scope=store.scope, path=str(path), commands=cards.cli_commands(memory)
            )
            ls.show_info(cards.plaintext(memory, facts))
    return data


def _pin(ls: TetherServer, obj: dict[str, Any], pinned: bool) -> dict[str, Any]:
    root, store, memory = find(ls, obj)
    updated = store.set_pinned(memory.id, pinned)
    acted(root, store, memory.id)
    changed(ls, root)
    return {**updated.to_dict(), "scope": store.scope}


def _guard(ls: TetherServer, obj: dict[str, Any], guard: bool) -> dict[str, Any]:
    from recall.anchors.guards import set_guard

    root, store, memory = find(ls, obj)
    if guard and (refused := guard_refusal(store.scope, memory)) is not None:
        raise BadInput(refused)
    updated = set_guard(store, memory.id, guard)
    acted(root, store, memory.id)
    changed(ls, root)
    return {**updated.to_dict(), "scope": store.scope}


def _status(ls: TetherServer, obj: dict[str, Any], verb: str) -> dict[str, Any]:
    status, allowed = TRANSITIONS[verb]
    root, store, memory = find(ls, obj)
    updated = store.set_status(memory.id, status, allowed_from=allowed)
    acted(root, store, memory.id)
    changed(ls, root)
    data = {**updated.to_dict(), "scope": store.scope}
    left = left_superseded(store, updated.id, status)
    if left is not None:  # the memory it replaced is out of recall with nothing in its place
        data["leftSuperseded"] = left[0]
        ls.show_info(left[1])
    return data


def _restore(ls: TetherServer, obj: dict[str, Any]) -> dict[str, Any]:
    """As ``tether restore`` (recall.lifecycle.disuse.bring_back): back from disuse with its
    showing count started afresh, which is not an action; back from any other status, which
    is."""
    root, store, memory = find(ls, obj)
    restored = bring_back(store, memory, TRANSITIONS["restore"][1])
    if not restored.from_disuse:
        root.acted_this_turn.add(memory.id)  # counted by bring_back; the turn's note is ours
    changed(ls, root)
    data = {**restored.memory.to_dict(), "scope": store.scope}
    if restored.from_disuse:
        data["restoredFrom"] = "disuse"
    if restored.unreplaced:  # the memories that said they supersede it no longer do
        data["noLongerReplacedBy"] = restored.unreplaced
    if restored.replaces_no_more:  # its own supersedes named a memory restored before it
        data["noLongerSupersedes"] = restored.replaces_no_more
    return data


def _followed(ls: TetherServer, obj: dict[str, Any]) -> dict[str, Any]:
    root, store, memory = find(ls, obj)
    acted(root, store, memory.id)
    root.hints.dismiss(memory.id)
    diagnostics.republish(ls, root)
    return {"memoryId": memory.id, "usage": counters(store.conn, memory.id)}


async def _indexing_done(ls: TetherServer, base: str) -> None:
    waited = 0.0
    while base in ls.indexer.running:
        if waited >= INDEXING_WAIT_SECONDS:
            raise BadInput(f"{base} is still being indexed; run reindex when it ends")
        await asyncio.sleep(0.05)
        waited += 0.05


async def _reindex(ls: TetherServer, obj: dict[str, Any]) -> dict[str, Any]:
    scope = "global" if flag(obj, "global") else "project"
    roots: list[Root] = [root_and_doc(ls, obj)[0]] if text(obj, "uri") else list(ls.roots)
    done: list[dict[str, Any]] = []
    for root in roots:
        store = root.store_of_scope(scope)
        base = str(store.location.base) if store is not None else ""
        if store is None or any(d["path"] == base for d in done):
            continue
        await _indexing_done(ls, base)  # the indexer has a connection to the old index open
        try:
            report = store.reindex()
        except StoreBusy as error:  # the roots before it stay reindexed: said
            if not done:
                raise
            before = ", ".join(d["path"] for d in done)
            raise store_busy.PartlyWritten(f"{error}; reindexed before it: {before}") from None
        root.signals_changed()
        done.append(
            {
                "scope": scope,
                "path": base,
                "memories": store.count(),
                "problems": len(report.problems),
            }
        )
        if root.settings.index_on_start:
            ls.indexer.start(root)  # the genome went with the old index
        diagnostics.republish(ls, root)
    if not done:
        refusal = next(filter(None, (r.global_refusal() for r in roots)), None)
        if scope == "global" and refusal is not None:
            raise BadInput(refusal)
        raise NotFound(f"no {scope} store to reindex in this workspace")
    return {"reindexed": done}


def recall(ls: TetherServer, *args: Any) -> Any:
    """``tether.recall {uri?, prompt?, limit?, display?}``: ranked memories with receipts, for
    the ``uri``'s file, else for the ``prompt`` and the files the session touched in every
    workspace root, one ranking, each result naming its store."""
    return run(ls, "recall", args, recalling.recall_page)


async def show(ls: TetherServer, *args: Any) -> Any:
    """``tether.show {memoryId, display?}``: the memory, its file and counters (acts on it)."""
    return await run_async(ls, "show", args, _show)


async def pin(ls: TetherServer, *args: Any) -> Any:
    """``tether.pin {memoryId}``: pin a memory."""
    return await run_write(ls, "pin", args, lambda s, o: _pin(s, o, True))


async def unpin(ls: TetherServer, *args: Any) -> Any:
    """``tether.unpin {memoryId}``: unpin a memory."""
    return await run_write(ls, "unpin", args, lambda s, o: _pin(s, o, False))


async def guard(ls: TetherServer, *args: Any) -> Any:
    """``tether.guard {memoryId}``: guard a decision or gotcha."""
    return await run_write(ls, "guard", args, lambda s, o: _guard(s, o, True))


async def unguard(ls: TetherServer, *args: Any) -> Any:
    """``tether.unguard {memoryId}``: take a memory's guard off."""
    return await run_write(ls, "unguard", args, lambda s, o: _guard(s, o, False))


async def archive(ls: TetherServer, *args: Any) -> Any:
    """``tether.archive {memoryId}``: hide a memory from recall (reversible)."""
    return await run_write(ls, "archive", args, lambda s, o: _status(s, o, "archive"))


async def restore(ls: TetherServer, *args: Any) -> Any:
    """``tether.restore {memoryId}``: bring an archived (by a person or by disuse), deleted or
    superseded memory back."""
    return await run_write(ls, "restore", args, _restore)


def mark_followed(ls: TetherServer, *args: Any) -> Any:
    """``tether.markFollowed {memoryId}``: count that the memory was followed; hide its hint."""
    return run(ls, "markFollowed", args, _followed)


def list_memories(ls: TetherServer, *args: Any) -> Any:
    """``tether.list {uri?, status?, category?, pinned?, limit?}``: memories without side
    effects. With ``uri``: the file's ranked memories with receipts (``direct`` when the memory
    names the file, by a name it had before a rename too), or those of another ``status``
    naming it (an earlier name too, in either store, as recall follows renames); filtered
    alike. Without: every store's memories of ``status`` (active; or pending, archived,
    superseded, deleted, all), newest first across the stores. ``total`` is how many
    there were before ``limit`` cut them, ``totals`` the same per scope (``project``,
    ``global``), ``stores`` the same per store (``key``, ``scope``, ``path``, ``total``), and
    each memory's ``store`` the key of the store it is in."""
    return run(ls, "list", args, listing.list_page)


async def reindex(ls: TetherServer, *args: Any) -> Any:
    """``tether.reindex {uri?, global?}``: rebuild the index from the memory files (of the
    ``uri``'s repository, else of every root) and refresh the genome in the background."""
    return await run_write(ls, "reindex", args, _reindex)


def _writes_now(args: tuple[Any, ...]) -> bool:
    """Whether a remember or supersede writes the store now (``summary`` given, or arguments
    its run answers as unreadable) rather than opening a draft, which writes nothing to the
    store and so never waits for another process to let it go."""
    first = args[0] if len(args) == 1 else None
    return not isinstance(first, dict) or first.get("summary") is not None


async def remember(ls: TetherServer, *args: Any) -> Any:
    """``tether.remember {uri?, summary?, category?, files?, details?, pinned?, anchor?,
    global?}``: write a memory directly when ``summary`` is given, else open a draft."""
    if not _writes_now(args):
        return await run_async(ls, "remember", args, drafts.remember)
    return await run_write(ls, "remember", args, drafts.remember)


async def supersede(ls: TetherServer, *args: Any) -> Any:
    """``tether.supersede {memoryId, summary?, category?, files?, details?, anchor?, anchors?,
    pinned?, guard?}``: replace a memory directly when ``summary`` is given, else open a
    pre-filled draft; files, anchors, pin and guard carry over unless given."""
    if not _writes_now(args):
        return await run_async(ls, "supersede", args, drafts.supersede)
    return await run_write(ls, "supersede", args, drafts.supersede)


COMMANDS: dict[str, Callable[..., Any]] = {
    "tether.recall": recall,
    "tether.remember": remember,
    "tether.show": show,
    "tether.pin": pin,
    "tether.unpin": unpin,
    "tether.guard": guard,
    "tether.unguard": unguard,
    "tether.supersede": supersede,
    "tether.archive": archive,
    "tether.restore": restore,
    "tether.markFollowed": mark_followed,
    "tether.list": list_memories,
    "tether.reindex": reindex,
}


def register(server: TetherServer) -> None:
    """Add every ``tether.*`` command to the server."""
    for name, handler in COMMANDS.items():
        server.command(name)(handler)
