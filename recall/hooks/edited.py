"""Which file an edit tool call writes, and which repository's store answers for it.

The agent's session runs in one folder (the hook's ``cwd``), but an edit may fall in a nested
repository (a vendored checkout, a submodule) or in another repository altogether: its guards
and gotchas are that repository's, so its store answers (:func:`owner_location`). And an edit
of a link inside the repository writes the link's target: it is an edit of the target, with the
target's guards and gotchas (:func:`link_target`). A link leading outside the repository is
still refused, as every path leading outside is (:func:`recall.paths.normalize`).

All of it is a few ``stat`` calls on the edited path's folders: the hooks run on every tool
call, so nothing here opens a store or runs git.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING

from recall.paths import is_inside

if TYPE_CHECKING:
    from recall.locations import Location


def _absolute(raw: str, cwd: Path) -> str | None:
    """``raw`` (relative to ``cwd``) as a normalized absolute path; None for a name this module
    does not read (a ``file://`` URI or a Windows path, left to the store's own reading)."""
    if raw.startswith("file:") or "\\" in raw:
        return None
    joined = raw if raw.startswith("/") else posixpath.join(os.path.realpath(cwd), raw)
    full = posixpath.normpath(joined)
    return "/" + full.lstrip("/") if full.startswith("//") else full


def _nearest_root(folder: str, stop: str | None) -> str | None:
    """The nearest folder from ``folder`` upwards holding ``.git`` or a ``.tether`` folder (as
    :func:`recall.repo.find_root` tells a repository), ``stop`` when the walk reaches it first;
    None when there is none."""
    while True:
        if folder == stop:
            return stop
        if os.path.exists(folder + "/.git") or os.path.isdir(folder + "/.tether"):
            return folder
        parent = posixpath.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def owner_location(location: Location, cwd: Path, raw: str) -> Location:
    """The project location whose store answers an edit of ``raw``: ``location`` (the cwd's)
    unless the file lies in a nested repository below it, or outside its repository in another
    one, that has a Tether store.

    Within a repository the file's real path is what counts (so a link inside it that leads
    into a nested repository edits that repository's file); a path leading outside it through
    a link is left to that repository's store, which refuses it. Raises what
    :func:`recall.locations.project_location` raises for an unsafe store.
    """
    full = _absolute(raw, cwd)
    if full is None or location.repo_root is None:
        return location
    base = location
    if not is_inside(full, str(location.repo_root)):  # another repository's file, if any
        other = _location(_nearest_root(posixpath.dirname(full), None))
        if other is None or other.repo_root is None or not other.base.is_dir():
            return location  # the cwd's store refuses it, as before
        base = other
    root = str(base.repo_root)
    real = os.path.realpath(full)
    if not is_inside(real, root):
        return base
    owner = _nearest_root(posixpath.dirname(real), root)
    while owner is not None and owner != root:
        if os.path.isdir(owner + "/.tether"):
            nested = _location(owner)
            if nested is not None and nested.repo_root != base.repo_root:
                return nested
        owner = _nearest_root(posixpath.dirname(owner), root)
    return base  # a nested repository without a store: the outer one answers, as before


def _location(root: str | None) -> Location | None:
    """The project location of the repository at ``root`` (None for none)."""
    from recall.errors import NotFound
    from recall.locations import project_location

    if root is None:
        return None
    try:
        return project_location(Path(root))
    except NotFound:
        return None


def link_target(repo_root: Path | None, path: str) -> str:
    """The repository path an edit of ``path`` writes: ``path`` itself, or, when it is a link
    (or lies below a linked folder) leading elsewhere inside the repository, the target's.

    ``path`` comes from :meth:`recall.store.MemoryStore.normalize_input`, which has refused
    any path leading outside the repository; a target found outside it all the same (the link
    changed since) gives ``path`` back."""
    if repo_root is None:
        return path
    root = os.path.realpath(repo_root)
    real = os.path.realpath(posixpath.join(root, path))
    if real == posixpath.join(root, path) or real == root or not is_inside(real, root):
        return path
    return real[len(root.rstrip("/")) + 1 :]
