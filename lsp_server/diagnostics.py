"""Gotchas out as diagnostics: recall for the touched file, the hint policy, one publish.

Publishing happens synchronously inside the didOpen/didChange handler, with no debounce: agents
read diagnostics right after their edit and miss late ones. Recall results are cached per file
until something they depend on changes (a memory written, a turn ended, the genome refreshed),
so a keystroke costs the hint check, the anchor search and the publish.
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
import time
from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server import broken_files, capabilities, usage_counts
from lsp_server.doc_parse import parse_of
from lsp_server.documents import DocState, Shown, current_text, usable_text
from lsp_server.hook_guards import UnloadedGuard, memory_file, with_hook_memories
from lsp_server.placement import MovedHere, span_of
from lsp_server.positions import to_range
from lsp_server.roots import Root
from lsp_server.shown_share import active_counts, shown_share
from recall.agent_text import for_agent
from recall.anchors.states import RELOCATED, states_of
from recall.anchors.symbols import SymbolAnchor
from recall.errors import TetherError
from recall.model import REJECTED_WORDING
from recall.policy.hints import Candidate
from recall.policy.inject import AUTHOR_CAP, safe_field
from recall.ranking.asked_present import asked_present
from recall.ranking.engine import Hit
from recall.ranking.query import TOUCH_KINDS, RecallQuery, Touch
from recall.ranking.weights import SUMMARY_CAP
from recall.server_settings import OFF

if TYPE_CHECKING:
    from lsp_server.server import TetherServer

SOURCE = "tether"

BURST_SECONDS = 0.02
"""Changes closer together than this are a machine-speed burst (a script replaying edits, a
paste sent as keystrokes): they are published once per window instead of once per change, so
the server never falls behind. People and agents edit far slower, and each of their changes is
published synchronously, inside its didChange handler."""

RECALL_LIMIT = 100
"""Hits looked at per file before the category filter, at most: enough that the gotchas of a
file with dozens of memories are all ranked. A publish asks for fewer first (see
:func:`first_limit`) and for this many only when those fewer held too few to show."""

FIRST_LIMIT_MARGIN = 2
"""How many hits are asked for first, per diagnostic a file may show and per share of the
memories that are of a shown category: twice the top N when every memory may be shown (room
for hits that are not strong), more when shown categories are rare. Asking for fewer makes a
recall cheaper (hydration and drift follow what is returned); asking again costs a second."""

WORDING = {
    "gotcha": "review before editing",
    "decision": "a decision recorded for this file",
    "pref": "a preference recorded for this file",
    "context": "context recorded for this file",
    "rejected": f"{REJECTED_WORDING}: read why before trying it again",
}
GUARD_WORDING = "guarded: check the edit keeps to it (`tether confirm` once it does)"
UNLOADED_GUARD_WORDING = "guarded: check the edit keeps to it"


def hits_for(root: Root, path: str, kind: str, limit: int = RECALL_LIMIT) -> list[Hit]:
    """Recall's best ``limit`` hits for one touched file (cached until the root's state
    changes, or the clock's day), a file the editor holds (or is about to open): present
    whether or not it is on disk (a buffer not saved yet, a file deleted while open)."""
    root.rank_today()
    key = (kind, path, limit)
    cached = root.hits.get(key)
    if cached is None:
        query = RecallQuery((Touch(path, kind),), None, limit=limit)
        recaller = root.recaller()
        with asked_present(recaller, [path]):
            cached = recaller.recall(query).hits
        root.hits[key] = cached
    return cached


def first_limit(wanted: int, share: float) -> int:
    """Hits to ask for first when ``wanted`` diagnostics may be shown and ``share`` (0-1] of
    the memories are of a shown category."""
    return min(RECALL_LIMIT, max(wanted, math.ceil(wanted * FIRST_LIMIT_MARGIN / share)))


def message(hit: Hit, path: str) -> str:
    """The diagnostic text: what the memory says, its id, and what to do about it."""
    memory = hit.memory
    # Agents read diagnostics as context (Claude Code wraps them in a block of its own), so the
    # memory's text gets the injected block's escaping and masking (recall.agent_text).
    summary = safe_field(for_agent(memory).summary, SUMMARY_CAP)
    where = memory.id if hit.scope == "project" else f"{memory.id}, {hit.scope}"
    pinned = "pinned " if memory.pinned else ""
    if isinstance(hit, UnloadedGuard):  # `tether confirm` cannot load it either
        kept = f"{UNLOADED_GUARD_WORDING}; {safe_field(hit.receipt)}"
        return f'guarded {pinned}{memory.category} "{summary}" [{where}] — {kept}'
    if memory.guard:
        text = f'guarded {pinned}{memory.category} "{summary}" [{where}] — {GUARD_WORDING}'
        return text if path in memory.files else f"{text} ({safe_field(hit.receipt)})"
    text = f'{pinned}{memory.category} "{summary}" [{where}] — {WORDING[memory.category]}'
    if path not in memory.files:
        text += f" ({safe_field(hit.receipt)})"
    return text


def untrusted(text: str, hit: Hit) -> str:
    """A diagnostic's text marked as coming from a workspace the editor does not trust."""
    author = safe_field(for_agent(hit.memory).author, AUTHOR_CAP) or "an unknown author"
    return f"{text} [untrusted workspace: project memory by {author}]"


def candidates(ls: TetherServer, doc: DocState, kind: str) -> list[Hit]:
    """The hits that may become diagnostics on ``doc``: shown categories, strong, top N of the
    best :data:`RECALL_LIMIT` (cached until the root's state changes)."""
    root = doc.root
    root.rank_today()
    key = (kind, doc.rel)
    found = root.candidates.get(key)
    if found is None:
        found = root.candidates[key] = _choose(ls, root, doc.rel, kind)
    return found


def prepare(ls: TetherServer, root: Root, path: str, kind: str) -> None:
    """Rank ``path`` for ``kind`` ahead of its publish, as :func:`candidates` would (kept
    where it keeps its own, dropped with them)."""
    root.rank_today()
    key = (kind, path)
    if key not in root.candidates:
        root.candidates[key] = _choose(ls, root, path, kind)


def _choose(ls: TetherServer, root: Root, path: str, kind: str) -> list[Hit]:
    """The strong hits shown: every guarded one first (not counted against ``maxPerFile``: it
    stays up while its file is open), those the edit hook asks about that recall does not rank
    among them, then the gotchas it warns of by a name a staged rename left behind
    (:mod:`lsp_server.hook_guards`) and the best others, up to ``maxPerFile``."""
    return with_hook_memories(ls, root, path, _ranked_choice(ls, root, path, kind))


def _ranked_choice(ls: TetherServer, root: Root, path: str, kind: str) -> list[Hit]:
    """Recall's strong hits shown: guarded ones first, then the best others up to
    ``maxPerFile``."""
    settings = root.settings
    wanted = settings.max_per_file
    share = shown_share(ls, root)
    guarding = settings.guard_severity != OFF
    guards = sum(n for (_, g), n in active_counts(root).items() if g) if guarding else 0
    if share == 0 or wanted == guards == 0:  # nothing could be shown: no recall at all
        return []

    def shown(hits: list[Hit]) -> tuple[list[Hit], list[Hit]]:
        kept = [
            h
            for h in hits
            if h.strong
            and settings.severity_for(h.memory.category, ls.client_name, guard=h.memory.guard)
            is not None
        ]
        guard = [h for h in kept if guarding and h.memory.guard]
        return guard, [h for h in kept if h not in guard]

    limit = first_limit(max(wanted, 1), share)
    hits = hits_for(root, path, kind, limit)
    guarded, others = shown(hits)
    # A guard may rank anywhere: the rest is read too while the root has guards not found yet
    if (len(others) < wanted or len(guarded) < guards) and len(hits) == limit < RECALL_LIMIT:
        guarded, others = shown(hits_for(root, path, kind, RECALL_LIMIT))
    return guarded + others[:wanted]


def _moved_here(root: Root, rel: str) -> MovedHere:
    """Which anchors of other files the symbol index finds relocated to ``rel``."""

    def moved(anchors: list[SymbolAnchor]) -> list[SymbolAnchor]:
        states = states_of(tuple(anchors), root.signals())
        return [
            s.anchor
            for s in states
            if s.state == RELOCATED and s.found is not None and s.found.path == rel
        ]

    return moved


def _range(ls: TetherServer, doc: DocState, hit: Hit, text: str) -> types.Range:
    """Where ``hit``'s diagnostic goes in ``doc`` holding ``text``, placed on the document's
    kept parse (carried through the edits since, while typing goes on)."""
    moved = _moved_here(doc.root, doc.rel)
    span = span_of(hit.memory, doc.rel, text, moved, lambda: parse_of(doc, text))
    return to_range(span, text, ls.workspace.position_encoding)


def _diagnostic(ls: TetherServer, doc: DocState, hit: Hit, text: str) -> Shown:
    rng = _range(ls, doc, hit, text)
    severity = doc.root.settings.severity_for(
        hit.memory.category, ls.client_name, guard=hit.memory.guard
    )
    related = None
    if capabilities.related_information(ls.client_capabilities):
        store = doc.root.store_of_scope(hit.scope)
        if store is not None:
            start = types.Position(0, 0)
            location = types.Location(
                uri=memory_file(store, hit).as_uri(), range=types.Range(start, start)
            )
            related = [types.DiagnosticRelatedInformation(location, "the memory file")]
    diagnostic = types.Diagnostic(
        range=rng,
        message=(
            message(hit, doc.rel)
            if doc.root.settings.trusted_workspace or hit.scope != "project"
            else untrusted(message(hit, doc.rel), hit)
        ),
        severity=severity,
        code=hit.memory.id,
        source=SOURCE,
        related_information=related,
    )
    return Shown(hit, rng, diagnostic)


def publish(ls: TetherServer, doc: DocState, kind: str = "edit") -> None:
    """Recompute and publish the memory diagnostics of a code document.

    A store that cannot be read right now (locked past its retries, a file vanished mid-read)
    costs this publish, with a logged warning, never the server.
    """
    if doc.pending is not None:  # publishing now covers the deferred publish too
        doc.pending.cancel()
        doc.pending = None
    text = current_text(ls, doc)
    if text is None or not usable_text(ls, doc, text):
        clear(ls, doc)
        return
    root = doc.root
    try:
        ranked = _ranked_now(ls, doc, kind)
        choice = root.hints.choose([Candidate(h.memory.id, h.memory.pinned) for h in ranked])
        # A guard is not a hint: while its file is open it stays up, an error to look at before
        # the edit goes through, whatever the hint policy keeps quiet (counted only as shown)
        visible = set(choice.shown) | {h.memory.id for h in ranked if h.memory.guard}
        shown = [_diagnostic(ls, doc, h, text) for h in ranked if h.memory.id in visible]
    except (TetherError, sqlite3.Error, OSError) as error:
        ls.warn(f"memories for {doc.path} could not be read ({error})")
        return
    doc.shown = shown
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=doc.uri, diagnostics=[s.diagnostic for s in shown])
    )
    doc.last_published = time.monotonic()
    if choice.new:  # counted after the publish: the agent never waits on it
        usage_counts.count_surfacings(root, ranked, set(choice.new))


def _ranked_now(ls: TetherServer, doc: DocState, kind: str) -> list[Hit]:
    """The candidates for ``kind``; when they are not known yet but those of a weaker touch of
    the same file are (the first keystroke after an open), those, with the stronger ranking
    computed right after this publish and published if it differs, so the keystroke that
    starts an edit is answered without waiting for a recall."""
    root = doc.root
    root.rank_today()
    found = root.candidates.get((kind, doc.rel))
    if found is not None:
        return found
    strength = TOUCH_KINDS.index(kind) if kind in TOUCH_KINDS else 0
    weaker = list(reversed(TOUCH_KINDS[:strength]))  # strongest of the weaker first
    stale = next((s for k in weaker if (s := root.candidates.get((k, doc.rel))) is not None), None)
    if stale is None:
        return candidates(ls, doc, kind)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # nothing to come back on: rank now
        return candidates(ls, doc, kind)
    doc.refine_base = stale
    if doc.refine is None:
        doc.refine = loop.call_soon(_refine, ls, doc)
    return stale


def _refine(ls: TetherServer, doc: DocState) -> None:
    """Rank a document for how it is touched now; publish again if that changes what the
    last publish was chosen from."""
    if doc.refine is not None:
        doc.refine.cancel()
        doc.refine = None
    if ls.docs.get(doc.uri) is not doc:
        return
    kind = doc.root.touched.get(doc.rel, "edit")
    try:
        better = candidates(ls, doc, kind)
    except (TetherError, sqlite3.Error, OSError) as error:
        ls.warn(f"memories for {doc.path} could not be read ({error})")
        return
    before = [(h.scope, h.memory.id) for h in doc.refine_base]
    if [(h.scope, h.memory.id) for h in better] != before:
        publish(ls, doc, kind)


def place_again(ls: TetherServer, doc: DocState) -> None:
    """Parse ``doc`` again (typing paused) and publish again if a diagnostic's place differs
    from where the carried parse put it."""
    if doc.parse is None or doc.parse.exact:
        return
    doc.parse = None  # the next placement parses the text
    text = current_text(ls, doc)
    if text is None or doc.pending is not None:  # the publish due places on a parse anyway
        return
    try:
        moved = any(_range(ls, doc, s.hit, text) != s.range for s in doc.shown)
    except (TetherError, sqlite3.Error, OSError) as error:
        ls.warn(f"memories for {doc.path} could not be read ({error})")
        return
    if moved:
        publish(ls, doc, doc.root.touched.get(doc.rel, "edit"))


def publish_changed(ls: TetherServer, doc: DocState) -> None:
    """Publish after a change: at once, unless the change is part of a burst."""
    if doc.pending is not None:
        return  # the burst's publish is already due and will read the latest text
    if time.monotonic() - doc.last_published >= BURST_SECONDS:
        publish(ls, doc, "edit")
        return
    loop = asyncio.get_running_loop()
    doc.pending = loop.call_later(BURST_SECONDS, _publish_pending, ls, doc)


def _publish_pending(ls: TetherServer, doc: DocState) -> None:
    doc.pending = None
    if ls.docs.get(doc.uri) is doc:
        publish(ls, doc, "edit")


def flush_pending(ls: TetherServer) -> None:
    """Publish deferred diagnostics and finish due rankings now (a request sees the latest
    state first)."""
    for doc in list(ls.docs.values()):
        if doc.pending is not None:
            publish(ls, doc, "edit")
        if doc.refine is not None:
            _refine(ls, doc)


def clear(ls: TetherServer, doc: DocState) -> None:
    """Withdraw every memory diagnostic of a document."""
    if doc.pending is not None:
        doc.pending.cancel()
        doc.pending = None
    if doc.refine is not None:
        doc.refine.cancel()
        doc.refine = None
    if doc.reparse is not None:
        doc.reparse.cancel()
        doc.reparse = None
    doc.shown = []
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=doc.uri, diagnostics=[])
    )


def republish(ls: TetherServer, root: Root | None = None) -> None:
    """Publish again for every known code document (of one root, or all) and check every open
    memory document again, and say the memory files that cannot be loaded, once each.

    Memory documents are checked whatever the root: what they say depends on the stores
    (the memory a draft supersedes archived or restored, another file taking its id), and a
    global memory's document may belong to another root than the one that wrote the store."""
    for doc in list(ls.docs.values()):
        if doc.is_memory:
            ls.check_memory_document(ls, doc)
        elif root is None or doc.root is root:
            publish(ls, doc, doc.root.touched.get(doc.rel, "open"))
    broken_files.tell(ls, [root] if root is not None else broken_files.roots_in_view(ls))
