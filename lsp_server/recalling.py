"""``tether.recall``: ranked memories with receipts, for one file (``uri``: its root only), or
for a ``prompt`` and what the session touched in every workspace root, merged into one
ranking, each result naming the store it came from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from lsp_server.command_args import count, flag, text
from lsp_server.command_context import code_root_and_doc, self_serve
from lsp_server.documents import DocState
from lsp_server.listing import store_key
from lsp_server.roots import Root
from recall.agent_text import mask_hits
from recall.errors import BadInput
from recall.policy.inject import format_hit
from recall.ranking.asked_present import asked_present
from recall.ranking.hits import Hit
from recall.ranking.query import RecallQuery, Touch
from recall.store import MemoryStore

if TYPE_CHECKING:
    from lsp_server.server import TetherServer


class Found(NamedTuple):
    """One memory recalled, with the root whose search found it and its store."""

    root: Root
    store: MemoryStore
    hit: Hit


def _touches(root: Root, doc: DocState | None) -> tuple[Touch, ...]:
    """The file asked about, else every file of ``root`` the session touched."""
    if doc is not None:
        return (Touch(doc.rel, "edit"),)
    return tuple(Touch(path, kind) for path, kind in root.touched.items())


def _search(
    ls: TetherServer, root: Root, doc: DocState | None, prompt: str | None, limit: int
) -> tuple[list[Found], float] | None:
    """The hits of ``root``'s stores and the time taken; None when it has nothing to go on."""
    touches = _touches(root, doc)
    if not touches and not prompt:
        return None
    recaller = root.recaller()
    held = [doc.rel] if doc is not None and ls.docs.get(doc.uri) is doc else []
    with asked_present(recaller, held):  # an open buffer counts whether or not it is on disk
        result = recaller.recall(RecallQuery(touches, prompt, limit=limit))
    found = []
    for hit in result.hits:
        store = root.store_of_scope(hit.scope)
        if store is not None:
            found.append(Found(root, store, hit))
    return found, result.elapsed_ms


def _merged(found: list[Found], limit: int) -> list[Found]:
    """One ranking of the roots' hits, best first: a memory two roots found (the global store
    every root reads) once, where it scored best; the first ``limit`` of them."""
    best: dict[tuple[str, str], Found] = {}
    for one in found:
        key = (store_key(one.store), one.hit.memory.id)
        if key not in best or one.hit.score > best[key].hit.score:
            best[key] = one
    return sorted(best.values(), key=lambda one: -one.hit.score)[:limit]


def recall_page(ls: TetherServer, obj: dict[str, Any]) -> dict[str, Any]:
    """The answer of ``tether.recall`` (see :func:`lsp_server.commands.recall`)."""
    prompt = text(obj, "prompt")
    limit = count(obj, "limit", 10)
    first, doc = code_root_and_doc(ls, obj, "leave 'uri' out and give a 'prompt'")
    roots = [first] if doc is not None else list(ls.roots)
    searched = [(root, _search(ls, root, doc, prompt, limit)) for root in roots]
    asked = [(root, done) for root, done in searched if done is not None]
    if not asked:
        raise BadInput("nothing to recall for: give a file uri or a prompt")
    chosen = _merged([one for _, (found, _) in asked for one in found], limit)
    mask_hits([one.hit for one in chosen])  # as `tether recall` gives them (recall.agent_text)
    for root in roots:
        for store in root.stores():
            ids = [c.hit.memory.id for c in chosen if c.root is root and c.store is store]
            if ids and store.exists:
                root.usage.surfaced(store, ids)
        self_serve(ls, root, "recall", obj)  # the session's hints, in every root searched
    if flag(obj, "display"):
        what = doc.rel if doc is not None else "what you are touching"
        lines = [f"Tether: {len(chosen)} memories for {what}"] if chosen else []
        lines += [format_hit(one.hit) for one in chosen]
        ls.show_info("\n".join(lines or [f"Tether: no memories for {what}"]))
    return {
        "results": [
            {
                **one.hit.to_dict(),
                "store": store_key(one.store),
                "store_path": str(one.store.location.base),
            }
            for one in chosen
        ],
        "elapsed_ms": round(sum(ms for _, (_, ms) in asked), 2),
    }
