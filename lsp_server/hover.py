"""Hover on a memory's range: the full card. Hovering counts as acting on the memory (once per
memory per turn, since an editor sends a hover for every pause of the mouse)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server import capabilities, cards, watching
from lsp_server.documents import Shown
from lsp_server.hook_guards import memory_file
from lsp_server.positions import contains
from lsp_server.roots import Root
from recall.anchors.states import states_of
from recall.anchors.tree_reads import tree_reads

if TYPE_CHECKING:
    from lsp_server.server import TetherServer


def card_for(root: Root, shown: Shown, *, markdown: bool) -> str:
    """The card of one shown memory, in Markdown or plain text."""
    hit = shown.hit
    memory = hit.memory
    store = root.store_of_scope(hit.scope)
    path = _shown_path(memory_file(store, hit), store.repo_root) if store is not None else ""
    commands = cards.cli_commands(memory)
    genome = root.signals()
    # an anchored file saved since the index read it (a function renamed and not yet staged)
    # is read from disk, as `tether show` reads it
    states = states_of(memory.anchors, genome, tree=tree_reads(genome, memory.anchors))
    symbols = [s.describe() + s.renamed_fix(memory.id) for s in states]
    facts = cards.CardFacts(
        scope=hit.scope, receipt=hit.receipt, path=path, commands=commands, symbols=symbols
    )
    return cards.markdown(memory, facts) if markdown else cards.plaintext(memory, facts)


def _shown_path(path: Path, repo_root: Path | None) -> str:
    """A project memory's file relative to its repository (what a reader can find and review);
    a global one in full."""
    if repo_root is not None and path.is_relative_to(repo_root):
        return path.relative_to(repo_root).as_posix()
    return str(path)


def hover(ls: TetherServer, params: types.HoverParams) -> types.Hover | None:
    """The cards of the memories whose diagnostic range holds the position."""
    watching.before_request(ls)
    doc = ls.docs.get(params.text_document.uri)
    if doc is None or doc.is_memory:
        return None
    here = [s for s in doc.shown if contains(s.range, params.position)]
    if not here:
        return None
    root = doc.root
    for shown in here:
        memory_id = shown.hit.memory.id
        store = root.store_of_scope(shown.hit.scope)
        if memory_id not in root.acted_this_turn and store is not None and store.exists:
            root.usage.acted(store, memory_id)
            root.acted_this_turn.add(memory_id)
    markdown = capabilities.hover_markdown(ls.client_capabilities)
    separator = "\n\n---\n\n" if markdown else "\n\n"
    value = separator.join(card_for(root, s, markdown=markdown) for s in here)
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(contents=types.MarkupContent(kind=kind, value=value), range=here[0].range)


def register(server: TetherServer) -> None:
    """Add the hover feature to the server."""
    server.feature(types.TEXT_DOCUMENT_HOVER)(hover)
