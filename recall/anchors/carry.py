"""Which of a superseded memory's symbol anchors the new memory keeps when the person names its
files anew and gives no anchor: those in a file still named. An anchor whose file is left out
(deleted, say, or no longer what the memory is about) goes, and each one that goes is said;
under a guard carried over, only one whose file is gone from the working tree goes (guarding
it protects nothing), so the guard is not narrowed by leaving a file out."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from recall.anchors.symbols import SymbolAnchor


def anchors_in_files(
    anchors: Iterable[SymbolAnchor],
    files: Iterable[str],
    keep_with: str,
    *,
    guarded_in: Path | None = None,
) -> tuple[tuple[SymbolAnchor, ...], list[str]]:
    """The ``anchors`` whose file is among ``files``, and a note for each other one, telling
    to give it again with ``keep_with`` (how the command takes an anchor) to keep it. With
    ``guarded_in`` (the root of a repository, for a memory whose guard carries over) an anchor
    whose file is still there is kept too."""
    named = set(files)

    def kept_one(anchor: SymbolAnchor) -> bool:
        if anchor.path in named:
            return True
        return guarded_in is not None and (guarded_in / anchor.path).exists()

    kept = tuple(anchor for anchor in anchors if kept_one(anchor))
    notes = [
        f"the symbol anchor {anchor.text} is not carried over: its file {anchor.path} is not "
        f"among the files given (give it again with {keep_with} to keep it)"
        for anchor in anchors
        if anchor not in kept
    ]
    return kept, notes
