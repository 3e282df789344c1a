"""A memory's anchors as a command writes them back: pointed at the file a definition moved
to (``tether repoint``), or with each found definition's body hash recorded anew (``tether
confirm``), from the states :func:`recall.anchors.states.states_of` reads."""

from __future__ import annotations

from typing import Any

from recall.anchors.states import RELOCATED, states_of
from recall.anchors.symbols import SymbolAnchor


def repointed_anchors(
    memory: Any, genome: Any | None
) -> tuple[tuple[SymbolAnchor, ...], dict[str, str]]:
    """The memory's anchors with each relocated one pointed at its new file (its recorded body
    hash kept, so a change still shows until confirmed), and the moves as old → new text."""
    moves: dict[str, str] = {}
    anchors: list[SymbolAnchor] = []
    for state in states_of(memory.anchors, genome):
        anchor = state.anchor
        if state.state == RELOCATED and state.found is not None:
            moved = SymbolAnchor(state.found.path, anchor.name, anchor.body, anchor.extra)
            moves[anchor.text] = moved.text
            anchor = moved
        anchors.append(anchor)
    return tuple(anchors), moves


def files_left_by(before: tuple[SymbolAnchor, ...], after: tuple[SymbolAnchor, ...]) -> list[str]:
    """The files some anchor of ``before`` is in and no anchor of ``after`` is: the files a
    repoint moved every anchor away from, in the order ``before`` names them."""
    still = {anchor.path for anchor in after}
    return [path for path in dict.fromkeys(a.path for a in before) if path not in still]


def confirmed_anchors(
    memory: Any, genome: Any | None
) -> tuple[tuple[SymbolAnchor, ...], tuple[SymbolAnchor, ...]]:
    """The memory's anchors with the body hash of each one found recorded anew (confirming a
    memory says its code is as it should be now), and those not found, which are kept as they
    were (gone, or no working tree to read them in): they could not be confirmed.

    The hash is of the definition in the working tree, as a write records it: the genome
    follows HEAD and git's index only, so an edit not yet staged would be missed. The genome
    only says where the definition is (its file and qualified name)."""
    from recall.anchors.write import body_in_tree

    root = getattr(genome, "repo_root", None)
    anchors: list[SymbolAnchor] = []
    missing: list[SymbolAnchor] = []
    for state in states_of(memory.anchors, genome):
        anchor = state.anchor
        found = state.found
        path, name = (found.path, found.name) if found is not None else (anchor.path, anchor.name)
        body = body_in_tree(root, path, name)
        if body is not None:
            anchor = SymbolAnchor(anchor.path, anchor.name, body, anchor.extra)
        else:
            missing.append(anchor)
        anchors.append(anchor)
    return tuple(anchors), tuple(missing)
