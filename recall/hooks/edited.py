"""Which file an edit tool call writes, and which stores answer for it.

The agent's session runs in one repository (the one holding the hook's ``cwd``), and its store
answers every edit. An edit in a nested repository inside it (a vendored checkout, a submodule:
a folder holding ``.git``) is asked of that repository's store too (:func:`nested_locations`),
for its guards and gotchas are written there; the session's store is asked all the same, so
its guards on the path are never dropped. A file outside the session's repository is answered
by no other store: a ``.tether`` folder found there was put by whoever could write there, so it
is neither read nor written, and the session's store refuses the path
(:func:`recall.paths.normalize`). A ``.tether`` folder alone does not make a nested repository:
a cloned or vendored folder could ship one to take the edits below it.

An edit of a link inside the repository writes the link's target: it is an edit of the
target, with the target's guards and gotchas (:func:`recall.paths.link_target`). A link
leading outside the repository is still refused, as every path leading outside is.

All of it is a few ``stat`` calls on the edited path's folders: the hooks run on every tool
call, so for a file of the session's repository with no nested repository above it nothing
here opens a store or runs git.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from recall.paths import is_inside

if TYPE_CHECKING:
    from recall.locations import Location

GITDIR_PREFIX = b"gitdir: "
"""How a submodule's (or a linked worktree's) ``.git`` file begins: the one file form of
``.git`` git itself reads."""


def _absolute(raw: str, cwd: Path) -> str | None:
    """``raw`` (relative to ``cwd``) as a normalized absolute path; None for a name this module
    does not read (a ``file://`` URI or a Windows path, left to the store's own reading)."""
    if raw.startswith("file:") or "\\" in raw:
        return None
    joined = raw if raw.startswith("/") else posixpath.join(os.path.realpath(cwd), raw)
    full = posixpath.normpath(joined)
    return "/" + full.lstrip("/") if full.startswith("//") else full


def real_path(raw: str, cwd: Path) -> str | None:
    """The real path (every link resolved) of the file ``raw`` names, relative to ``cwd``;
    None for a name this module does not read."""
    full = _absolute(raw, cwd)
    return None if full is None else os.path.realpath(full)


def _is_repository(folder: str) -> bool:
    """Whether ``folder`` holds a git repository: a ``.git`` folder with a ``HEAD``, or a
    ``.git`` file pointing at one (a submodule's). A ``.tether`` folder alone is not one."""
    git = folder + "/.git"
    if os.path.isdir(git):
        return os.path.isfile(git + "/HEAD")
    try:
        with open(git, "rb") as handle:
            return handle.read(len(GITDIR_PREFIX)) == GITDIR_PREFIX
    except OSError:
        return False


def nested_locations(
    location: Location, cwd: Path, raw: str, notice: Callable[[str], None]
) -> list[Location]:
    """The stores, besides ``location`` (the session's), that answer an edit of ``raw``: those
    of the nested repositories inside the session's repository holding the file, innermost
    first. None for a file outside the session's repository, and none for a nested repository
    whose store is missing or unsafe (``notice`` is told why): the session's store answers.

    The file's real path is what counts, so a link inside the repository that leads into a
    nested repository edits that repository's file.
    """
    real = real_path(raw, cwd)
    if real is None or location.repo_root is None:
        return []
    root = os.path.realpath(location.repo_root)
    if real == root or not is_inside(real, root):
        return []  # outside the session's repository: its own store refuses the path
    found: list[Location] = []
    folder = posixpath.dirname(real)
    while folder != root and is_inside(folder, root):
        if os.path.exists(folder + "/.git") and _is_repository(folder):
            nested = _nested_store(folder, notice)
            if nested is not None:
                found.append(nested)
        folder = posixpath.dirname(folder)
    return found


def _nested_store(root: str, notice: Callable[[str], None]) -> Location | None:
    """The store of the nested repository at ``root``; None when it has none, or one whose
    links lead outside it (``notice`` says so), or anything else keeps it from being read."""
    from recall.containment import UnsafeStore
    from recall.errors import TetherError
    from recall.locations import project_location

    try:
        nested = project_location(Path(root))
    except UnsafeStore as error:
        notice(str(error))
        return None
    except (TetherError, OSError):
        return None
    if str(nested.repo_root) != root or not nested.memories_dir.is_dir():
        return None
    return nested
