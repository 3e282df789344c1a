"""Which anchored symbols of a recalled memory the code no longer defines.

A recalled gotcha about ``parse_header`` misleads an agent once ``parse_header`` is gone. The
server's recall engine holds the project's genome, brought up to date with its symbol index
before each recall, so each returned hit's anchors are resolved in it as ``memory_get``
resolves them (:func:`recall.anchors.states.states_of`), an anchored file the working tree
holds otherwise than the index read it (a function renamed and not committed yet) read from the
working tree, as ``memory_get`` and ``tether check`` read it: a hit with an anchor resolved as
``gone`` carries ``anchors_gone``, and its ``note`` says that ``memory_get`` names the
closest names its file defines now. Only the hits returned are looked at, after ranking (the
ranking is not touched), and only those with anchors: a hit without any costs nothing, and
each anchored file of the hits is read once for them all (:func:`hits_tree`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from recall.anchors.states import GONE, AnchorState, states_of
from recall.anchors.tree_reads import TreeReads, tree_reads
from recall.locations import PROJECT

if TYPE_CHECKING:
    from recall.ranking.engine import Hit, RepoSignals


def symbol_index(repo: RepoSignals | None) -> RepoSignals | None:
    """``repo`` when it is a genome that keeps its symbol index up to date (the server's
    engine's); None otherwise: a working tree has no index, and one opened without symbols
    may lag the code and would call a symbol gone that is still there."""
    if getattr(repo, "conn", None) is None or not getattr(repo, "symbols", False):
        return None
    return repo


def _looked_up(found: Hit) -> bool:
    """Whether the anchors of ``found`` are looked up: it has some, and is of the project."""
    return bool(found.memory.anchors) and found.scope == PROJECT


def hits_tree(hits: Sequence[Hit], repo: RepoSignals | None) -> TreeReads:
    """The anchored files of ``hits`` (those whose anchors are looked up) that the working
    tree holds otherwise than the symbol index of ``repo`` read them, each read once; none
    without such an index."""
    genome = symbol_index(repo)
    if genome is None:
        return TreeReads()
    return tree_reads(
        genome, [a for found in hits if _looked_up(found) for a in found.memory.anchors]
    )


def gone_note(memory_id: str, states: Sequence[AnchorState]) -> str:
    """What a hit whose anchors ``states`` include gone ones says about them: that the code
    no longer defines them, and what ``memory_get`` with ``memory_id`` tells."""
    if any(state.close for state in states if state.state == GONE):
        what = "names the symbols their files define closest to them now"
    else:
        what = "says where each of its anchored symbols is now"
    return (
        "the code no longer defines the symbols in anchors_gone: check the memory still "
        f"holds before following it; memory_get with id {memory_id!r} {what}"
    )


def with_gone_anchors(
    shown: dict[str, Any], found: Hit, repo: RepoSignals | None, tree: TreeReads | None = None
) -> dict[str, Any]:
    """``shown`` (the hit ``found`` as returned) with ``anchors_gone`` (its memory's anchors
    the genome ``repo`` resolves as gone, in the memory's order, the files of ``tree`` as the
    working tree holds them: :func:`hits_tree`) and that said in ``note``, when there are any;
    else ``shown`` as it is. A memory of the global store belongs to no repository: its
    anchors are not looked up, as ``memory_get`` does not."""
    memory = found.memory
    genome = symbol_index(repo)
    if not _looked_up(found) or genome is None:
        return shown
    states = states_of(memory.anchors, genome, tree=tree)
    gone = [state.anchor.text for state in states if state.state == GONE]
    if not gone:
        return shown
    note = gone_note(memory.id, states)
    said = shown.get("note")
    return {**shown, "anchors_gone": gone, "note": f"{said}; {note}" if said else note}
