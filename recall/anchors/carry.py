"""Which of a superseded memory's symbol anchors the new memory keeps when the person (or
agent) names its files anew and gives no anchor, one rule for the CLI, the MCP server and the
editor.

An anchor in a file still named is kept. One whose file is gone from the working tree follows
its definition to where it is now, as ``tether repoint`` does (the file renamed, or the
definition moved: :func:`recall.anchors.anchor_updates.repointed_anchors`), when the new place is
among the files named or the guard carries over (guarding the code wherever it went). Under a
guard carried over, one whose file is still there is kept too (leaving a file out does not
narrow the guard). Every other one goes; each one that follows or goes is said.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from recall.anchors.symbols import SymbolAnchor

if TYPE_CHECKING:
    from recall.ranking.engine import RepoSignals
    from recall.store import MemoryStore


@dataclass(frozen=True)
class Carried:
    """The anchors a new memory keeps, and what is said about the others."""

    anchors: tuple[SymbolAnchor, ...]
    notes: list[str] = field(default_factory=list)
    """One line for each anchor carried to where its definition is now, or not carried."""
    signals: RepoSignals | None = None
    """The repository's signals opened to find where definitions went, for what the same
    command reads of them next (:class:`recall.anchors.guards.Replacement`); None when no
    anchor's file was gone, and nothing was opened."""


class Followed(NamedTuple):
    """Where anchors whose file is gone are now (:func:`following`), and the
    repository's signals read to find it (None when none was gone: nothing was opened)."""

    moves: dict[SymbolAnchor, SymbolAnchor]
    signals: RepoSignals | None


def following(
    store: MemoryStore,
    anchors: Iterable[SymbolAnchor],
    *,
    notice: Callable[[str], None],
    refresh: bool = True,
    opened: RepoSignals | None = None,
) -> Followed:
    """Each of ``anchors`` whose file is gone from ``store``'s working tree and whose
    definition the genome finds elsewhere (relocated: its file renamed, or it moved), pointed
    at its new file in the working tree (its recorded body kept, so a change still shows).
    The genome is brought up to HEAD first unless not to ``refresh``, ``notice`` hearing what
    that has to say; a store without a repository (the global one) follows nothing. It is
    ``opened`` when the caller has opened it already (for its history, without symbols:
    :func:`recall.repo_signals.with_symbols`), else opened here; either way it comes back
    with where they are now (None when no anchor's file was gone), for the caller to read
    again rather than open anew."""
    from recall.anchors.states import RELOCATED, states_of
    from recall.locations import GLOBAL
    from recall.repo_signals import open_repo_signals, with_symbols

    root = store.repo_root
    if root is None or store.scope == GLOBAL or not store.exists:
        return Followed({}, None)
    gone = tuple(anchor for anchor in anchors if not (root / anchor.path).exists())
    if not gone:
        return Followed({}, None)
    genome = (
        open_repo_signals(store, notice=notice, refresh=refresh)
        if opened is None
        else with_symbols(opened, notice=notice, refresh=refresh)
    )
    found: dict[SymbolAnchor, SymbolAnchor] = {}
    for state in states_of(gone, genome):
        now = state.found
        if state.state == RELOCATED and now is not None and (root / now.path).exists():
            anchor = state.anchor
            found[anchor] = SymbolAnchor(now.path, anchor.name, anchor.body, anchor.extra)
    return Followed(found, genome)


def carry_anchors(
    store: MemoryStore,
    anchors: Iterable[SymbolAnchor],
    files: Iterable[str],
    keep_with: str,
    *,
    guarded: bool,
    notice: Callable[[str], None],
    refresh: bool = True,
) -> Carried:
    """The ``anchors`` of a memory of ``store`` that a new memory naming ``files`` keeps, by
    the rule of this module; ``guarded`` when the old memory's guard carries over. A note for
    each one carried to its new place, and for each one dropped, telling to give it with
    ``keep_with`` (how the command takes an anchor) to keep it. ``notice`` and ``refresh``
    are for reading where a definition went (:func:`following`)."""
    anchors = tuple(anchors)  # read twice
    named = set(files)
    root = store.repo_root
    left_out = [anchor for anchor in anchors if anchor.path not in named]
    moves, signals = following(store, left_out, notice=notice, refresh=refresh)
    kept: list[SymbolAnchor] = []
    notes: list[str] = []
    for anchor in anchors:
        moved = moves.get(anchor)
        if anchor.path in named:
            kept.append(anchor)
        elif moved is not None and (guarded or moved.path in named):
            kept.append(moved)
            notes.append(
                f"the symbol anchor {anchor.text} is carried over as {moved.text}, where its "
                f"definition is now ({anchor.path} is no longer in the working tree)"
            )
        elif moved is not None:
            notes.append(
                f"the symbol anchor {anchor.text} (now {moved.text}) is not carried over: its "
                f"file {moved.path} is not among the files given (give {moved.text} with "
                f"{keep_with} to keep it)"
            )
        elif guarded and root is not None and (root / anchor.path).exists():
            kept.append(anchor)
        elif root is not None and not (root / anchor.path).exists():
            notes.append(
                f"the symbol anchor {anchor.text} is not carried over: its file {anchor.path} "
                "is no longer in the working tree, and no new place of its definition is known "
                f"(give the code it is about now with {keep_with} to keep one)"
            )
        else:
            notes.append(
                f"the symbol anchor {anchor.text} is not carried over: its file {anchor.path} "
                f"is not among the files given (give it again with {keep_with} to keep it)"
            )
    return Carried(tuple(dict.fromkeys(kept)), notes, signals)
