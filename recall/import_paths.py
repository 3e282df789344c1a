"""The files an import names that the repository does not know, found once per import.

``tether remember`` refuses such a path as a typo; an import of old history legitimately
names files deleted long ago, so it writes them as given and says which it could not find,
with the closest names. Git is asked once for all the lines (a few calls, whatever their
count), never once per line or per path: an import runs to tens of thousands of lines.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Final

from recall.closest_names import suggestions
from recall.display import visible
from recall.gitquery import git_stdout
from recall.history_paths import chunks, in_history
from recall.known_paths import GIT_TIMEOUT_S, is_git, tree_paths

SUGGESTED_PATHS: Final = 50
"""Unknown paths of one import given a "did you mean": comparing each with every file of a
large tree takes tens of milliseconds, and past a few dozen the paths are not typos but a
history from elsewhere; the others are still named, with no suggestion."""

HISTORY_CHECKED_MAX: Final = 50
"""Paths missing from the working tree that one import looks for in the whole history. Each
``git log`` with path limits walks every commit (seconds per call on a history of 30,000
commits): a few such paths are typos worth catching; past this many, the import is a history
of files deleted since, written as given without a note (``tether doctor`` names a file that
no commit ever had)."""

Hints = dict[str, list[str] | None]
"""Each unknown path, with the closest names of the tree (None: not compared, see
:data:`SUGGESTED_PATHS`)."""


def _names(raw: bytes) -> set[str]:
    """The paths of a ``-z`` listing, and every folder above each."""
    names = {n.strip("\n") for n in raw.decode("utf-8", "surrogateescape").split("\0")}
    names.discard("")
    folders = {name[:at] for name in names for at, ch in enumerate(name) if ch == "/"}
    return names | folders


def _not_in(root: Path, paths: set[str], *command: str) -> set[str] | None:
    """Those of ``paths`` that ``git COMMAND -- PATHS`` does not list (nor a file under them);
    None when git cannot answer."""
    left = set(paths)
    for specs in chunks(sorted(paths)):
        raw = git_stdout(root, *command, "--", *specs, timeout=GIT_TIMEOUT_S)
        if raw is None:
            return None
        left -= _names(raw)
    return left


def unknown_paths(root: Path, paths: Iterable[str]) -> set[str]:
    """The paths (relative to ``root``) that are neither on disk, nor tracked, nor touched by
    any commit reachable from a ref; none when git cannot answer (a path is never called
    unknown on a guess) or when more than :data:`HISTORY_CHECKED_MAX` are missing from the
    tree."""
    missing = {path for path in paths if not os.path.lexists(root / path)}
    if not missing or not is_git(root):
        return missing
    untracked = _not_in(root, missing, "ls-files", "-z")
    if not untracked or len(untracked) > HISTORY_CHECKED_MAX:
        return set()
    known = in_history(root, untracked, timeout=GIT_TIMEOUT_S)
    return set() if known is None else untracked - known


def unknown_hints(root: Path, paths: Iterable[str]) -> Hints:
    """:func:`unknown_paths` of ``paths``, each with the closest names of the working tree
    (the first :data:`SUGGESTED_PATHS` of them)."""
    unknown = sorted(unknown_paths(root, paths))
    if not unknown:
        return {}
    tree = tree_paths(root)
    return {
        path: suggestions(path, tree) if n < SUGGESTED_PATHS else None
        for n, path in enumerate(unknown)
    }


def hints_ahead(root: Path, paths: Iterable[str]) -> Future[Hints]:
    """:func:`unknown_hints` begun at once on a thread of its own: an import asks while it
    commits (git's answer and the files' stats then wait on no one) and reads the answer, or
    what went wrong making it, from the future after."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tether-paths")
    try:
        return pool.submit(unknown_hints, root, set(paths))
    finally:
        pool.shutdown(wait=False)  # the thread ends with its one job


def unknown_note(unknown: Sequence[str], hints: Hints, where: object) -> str:
    """The note for one imported memory whose files ``unknown`` the repository does not know,
    naming each with its closest names; ``where`` is the memory's file."""
    said = []
    for path in unknown:
        close = hints.get(path)
        if close:
            said.append(f"{path!r} (did you mean {' or '.join(map(visible, close))}?)")
        elif close is None:
            said.append(f"{path!r} (no suggestion: over {SUGGESTED_PATHS} unknown paths)")
        else:
            said.append(repr(path))
    return (
        f"files not in the repository nor in its history, written as given: {', '.join(said)}; "
        f"if one is a typo, correct it in {where}"
    )
