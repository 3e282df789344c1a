"""The one-line messages of the maintenance commands: a dead reference (doctor, repoint) and
a drifting memory (doctor, show)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recall.closest_names import SUGGESTED_PER_MEMORY, suggestions
from recall.file_kinds import special_kind
from recall.lifecycle.dead import DeadReference, deleted_after_rename
from recall.lifecycle.references import Drift
from recall.named_files import unfit_line

if TYPE_CHECKING:
    from pathlib import Path


def dead_message(
    dead: DeadReference,
    tree: list[str] | None = None,
    gone: dict[str, str] | None = None,
    root: Path | None = None,
) -> str:
    """One line about a dead reference, with the rename git knows of if any, else the closest
    names of ``tree`` (the repository's files) when it is given: a typo in a hand-written file
    (for its first :data:`~recall.closest_names.SUGGESTED_PER_MEMORY` files, the rest counted).
    ``gone`` (:func:`recall.lifecycle.dead.renamed_then_gone`) are the files renamed and then
    deleted, said as ``tether repoint`` says them: there is nothing to repoint them to. A
    folder of ``root`` (the working tree) or one of git's own files is said to be one, in the
    words a write refuses it with; a named pipe in a file's place is said to be one too."""
    memory_id = dead.memory.id
    gone = gone or {}
    files = dead.memory.files
    unfit = {
        path: line
        for n, path in enumerate(files)
        if path not in gone and (line := _unfit(root, path, f"files[{n}]")) is not None
    }
    moved = {old: new for old, new in dead.renamed.items() if new}
    if moved:
        said = ", ".join(f"{old} -> {new}" for old, new in moved.items())
        if gone:
            said += f"; {deleted_after_rename(gone)}"
        return (
            f"{memory_id}: every file it names is gone; git shows {said} "
            f"(`tether repoint {memory_id} --apply`)"
        )
    names = ", ".join(dead.memory.files)
    plain = [path for path in files if path not in gone and path not in unfit]
    compared = plain[:SUGGESTED_PER_MEMORY] if tree else []
    close = [c for path in compared for c in suggestions(path, tree or [])]
    hint = f"; did you mean {' or '.join(dict.fromkeys(close))}?" if close else ""
    if len(compared) < len(plain) and tree:
        more = len(plain) - len(compared)
        hint += f"; {more} more with no suggestion (over {SUGGESTED_PER_MEMORY} gone files)"
    if unfit:
        said = f"{memory_id}: no file it names is in the working tree: {'; '.join(unfit.values())}"
        if rest := [path for path in files if path not in unfit]:
            said += f"; gone: {', '.join(rest)}"
        if gone:
            said += f"; git shows {deleted_after_rename(gone)}"
        return said + hint
    if not gone:
        return f"{memory_id}: every file it names is gone ({names}){hint}"
    return (
        f"{memory_id}: every file it names is gone ({names}); git shows "
        f"{deleted_after_rename(gone)}: no file to repoint it to (edit its files: list or "
        f"`tether archive {memory_id}`){hint}"
    )


def _unfit(root: Path | None, path: str, label: str) -> str | None:
    """Why ``path``, given as ``label``, is no file of the working tree ``root`` although
    something is there: a folder or one of git's own files (:func:`unfit_line`), or a named
    pipe, a socket or a device in a file's place; None for any other path."""
    line = unfit_line(root, path, label)
    if line is None and root is not None and (kind := special_kind(root / path)) is not None:
        line = f"{label} {path!r} is {kind}, not a regular file"
    return line


def drift_message(found: Drift) -> str:
    """One line about a drifting memory."""
    return (
        f"{found.memory.id}: spot-check: its files saw {found.commits} commits since "
        f"{found.since} (`tether confirm {found.memory.id}` once checked)"
    )
