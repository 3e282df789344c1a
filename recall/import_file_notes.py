"""What an import says on each created line about the files it names: those the repository
does not know (a typo, a file of old history) and those no edit can touch (a folder, one of
git's own files), each looked at once for the whole import."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from recall.import_paths import Hints, unknown_hints, unknown_note
from recall.locations import PROJECT

if TYPE_CHECKING:
    from recall.importer import LineResult
    from recall.store import MemoryStore


def note_file_problems(store: MemoryStore, created: list[LineResult], hints: Hints | None) -> None:
    """Note on each created line the files the repository does not know (a typo, or a file
    of old history), checked once for the whole import (``hints``, when found already), and
    the files no edit can touch (:func:`_note_unfit_files`)."""
    root = store.repo_root if store.scope == PROJECT else None
    _note_unfit_files(root, created)
    if root is None or not created:
        return
    if hints is None:
        hints = unknown_hints(root, {path for entry in created for path in entry.files})
    if not hints:
        return
    inside = os.path.join(root, "")  # a memory file under it is named from the root
    for entry in created:
        unknown = tuple(path for path in entry.files if path in hints)
        if unknown:
            where = str(entry.path)
            entry.unknown_files = unknown
            entry.notes.append(unknown_note(unknown, hints, where.removeprefix(inside)))


def _note_unfit_files(root: Path | None, created: list[LineResult]) -> None:
    """Note on each created line the files ``remember`` refuses as the file of no memory
    (a folder of ``root``, one of git's own files; see :mod:`recall.named_files`), each
    looked at once for the whole import. They are written as given, as a file unknown to
    the repository is: a line of an export gives back what its store held, and ``tether
    doctor`` names them until they are corrected."""
    from recall.named_files import unfit_reason

    reasons: dict[str, str | None] = {}
    inside = os.path.join(root, "") if root is not None else None
    for entry in created:
        for path in entry.files:
            if path not in reasons:
                reasons[path] = unfit_reason(root, path)
        unfit = [path for path in entry.files if reasons[path] is not None]
        if not unfit:
            continue
        entry.unfit_files = tuple(unfit)
        where = str(entry.path)
        where = where.removeprefix(inside) if inside is not None else where
        said = "; ".join(f"file {path!r} is {reasons[path]}" for path in unfit)
        entry.notes.append(
            f"written as given, though `remember` refuses it: {said}; correct it in {where}"
        )
