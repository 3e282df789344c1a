"""``tether.list``: memories without side effects, each page saying which store each of its
totals belongs to, so a window with a server per folder counts a store they share once."""

from __future__ import annotations

import hashlib
from typing import Any

from lsp_server import diagnostics
from lsp_server.command_args import count, flag, text
from lsp_server.command_context import root_and_doc
from lsp_server.server import TetherServer
from recall.lifecycle.disuse import as_seen
from recall.listed_names import earlier_names
from recall.model import Memory
from recall.newest_first import newest_first
from recall.ranking.hits import Hit
from recall.store import MemoryStore
from recall.text_checks import check_category, check_status
from recall.written_moments import names_it_by

LIST_LIMIT = 500
"""Memories ``tether.list`` returns unless asked for fewer: every memory of a well-kept store,
while a runaway one (an import gone wrong) cannot stall the editor's view. A person scrolls
that view, so it can hold ten times what MCP's ``memory_list`` hands an agent, whose every
line lands in its context window (mcp_server.limits.LIST_LIMIT)."""

STORE_KEY_CHARS = 16
"""Hex digits of a store's key (a digest of its folder's resolved path): 64 bits never meet
by chance among one user's stores, and each listed memory carries its key, so it stays short."""


def store_key(store: MemoryStore) -> str:
    """The same key for a store whichever server lists it: two folders of one repository, each
    with its own server, list one project store; every server lists the one global store."""
    path = str(store.location.base.resolve())
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:STORE_KEY_CHARS]


def _listed(memory: Memory, scope: str, key: str) -> dict[str, Any]:
    return {
        "id": memory.id,
        "summary": memory.summary,
        "details": memory.details,
        "category": memory.category,
        "pinned": memory.pinned,
        "status": memory.status,
        "files": list(memory.files),
        "anchor": memory.anchor,
        "created": memory.created,
        "scope": scope,
        "store": key,
    }


def list_page(ls: TetherServer, obj: dict[str, Any]) -> dict[str, Any]:
    """The answer of ``tether.list`` (see :func:`lsp_server.commands.list_memories`)."""
    limit = count(obj, "limit", LIST_LIMIT)
    status = check_status(text(obj, "status") or "active")
    category = text(obj, "category")
    if category is not None:
        check_category(category)
    pinned_only = flag(obj, "pinned")
    if text(obj, "uri") is not None:
        root, doc = root_and_doc(ls, obj)
        assert doc is not None
        if doc.is_memory:
            return {"memories": []}
        # every store of the root: a hit cached before its store folder went still names it
        stores = {s.scope: s for s in root.stores()}
        keys = {scope: store_key(s) for scope, s in stores.items()}
        if status != "active":  # only active memories are ranked: those naming the file
            found = _of_status(
                list(stores.values()), status, category, pinned_only, doc.rel, root.project
            )
            for entry in found:
                entry["direct"] = True
            return _page(found, limit, {keys[s]: store for s, store in stores.items()})
        # the ranking the diagnostics use (cached), without counters or hint effects
        kind = root.touched.get(doc.rel, "open")
        hits = diagnostics.hits_for(root, doc.rel, kind)
        named = _naming(root.project, doc.rel, hits)
        found = [
            {
                **_listed(h.memory, h.scope, keys[h.scope]),
                "receipt": h.receipt,
                "score": round(h.score, 4),
                "direct": h.memory.id in named,
            }
            for h in hits
            if (h.strong or h.memory.id in named)
            and category in (None, h.memory.category)
            and (h.memory.pinned or not pinned_only)
        ]
        return _page(found, limit, {keys[s]: store for s, store in stores.items()})
    listed_stores = {store_key(s): s for each in ls.roots for s in each.stores() if s.exists}
    found = _of_status(list(listed_stores.values()), status, category, pinned_only, None)
    return _page(found, limit, listed_stores)


def _naming(project: MemoryStore | None, file: str, hits: list[Hit]) -> set[str]:
    """The ids of the memories among ``hits`` that name ``file``, by its name or by a name it
    had before a rename that they were written early enough to mean it by, as recall follows
    renames: the renames as the index recorded them, the ones the hits were ranked with (its
    history is brought up to HEAD in the background, :mod:`lsp_server.progress`)."""
    if all(file in h.memory.files for h in hits):
        return {h.memory.id for h in hits}
    names = earlier_names(project, file, as_of_head=False)
    return {h.memory.id for h in hits if names_it_by(h.memory.files, h.memory.created, file, names)}


def _of_status(
    stores: list[MemoryStore],
    status: str,
    category: str | None,
    pinned_only: bool,
    file: str | None,
    history: MemoryStore | None = None,
) -> list[dict[str, Any]]:
    """The memories of ``status`` and ``category`` in ``stores`` (naming ``file`` when given,
    or one of its earlier names in the history ``history``, the project store, holds: for
    the memories of every store, as recall follows renames), newest first across the stores
    (:func:`recall.newest_first.newest_first`), each memory once."""
    seen: set[tuple[str, str]] = set()
    found: list[tuple[Memory, dict[str, Any]]] = []
    for store in stores:
        if not store.exists:
            continue
        key = store_key(store)
        # for this user, a memory archived by disuse lists as archived, as in `tether list`
        listed, disused = as_seen(
            store, file=file, category=category, status=status, history=history
        )
        for memory in listed:
            if (store.scope, memory.id) in seen or (pinned_only and not memory.pinned):
                continue
            seen.add((store.scope, memory.id))
            entry = {**_listed(memory, store.scope, key), "receipt": None}
            if memory.id in disused:
                entry.update(status="archived", archivedBy="disuse")
            found.append((memory, entry))
    return [entry for _, entry in newest_first(found, lambda item: item[0])]


def _page(
    found: list[dict[str, Any]], limit: int, stores: dict[str, MemoryStore]
) -> dict[str, Any]:
    """The first ``limit`` of ``found``, with how many there were before the cut (``total``)
    so a client can say the list is not whole; that count per scope (``totals``, what older
    clients read); and per store (``stores``: its ``key``, as each memory's ``store`` names
    it, ``scope``, ``path`` and ``total``, every store listed, even with none found): a
    window with a server per folder gets the global store, and a repository two of its folders
    share, from more than one server, and counts each once."""
    totals: dict[str, int] = {}
    per_store = dict.fromkeys(stores, 0)
    for entry in found:
        totals[entry["scope"]] = totals.get(entry["scope"], 0) + 1
        per_store[entry["store"]] = per_store.get(entry["store"], 0) + 1
    listed = [
        {
            "key": key,
            "scope": store.scope,
            "path": str(store.location.base),
            "total": per_store[key],
        }
        for key, store in stores.items()
    ]
    return {"memories": found[:limit], "total": len(found), "totals": totals, "stores": listed}
