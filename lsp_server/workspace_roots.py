"""The roots of a workspace: its folders, those of one repository sharing a root (with its
stores and caches, :class:`lsp_server.roots.Root`), and the root each file belongs to."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from lsp_server.draft_files import drafts_dir
from lsp_server.nested_look import NestedLook
from lsp_server.roots import Notice, Root, is_within, reaches
from recall.containment import UnsafeStore
from recall.errors import BadInput, NotFound
from recall.locations import (
    GLOBAL,
    HomeUnusable,
    Location,
    StoreInGitFolder,
    WorkTreeOfAnother,
    check_home,
    global_base,
    global_location,
    project_location,
)
from recall.model import Memory
from recall.store import MemoryStore
from recall.store.across import why_not_found


class Roots:
    """The roots of the workspace, found by folder."""

    def __init__(self, *, session: str, notice: Notice, shown: Callable[[str, str], None]) -> None:
        self.session = session
        self.notice = notice
        self.shown = shown
        """Says ``(key, message)`` where the user sees it, once per key (in the log each time):
        why a folder has no root, or goes without the user-wide store."""
        self._roots: list[Root] = []
        self.discover = False
        """True when the client named no folder: roots are then found from documents."""
        self.on_added: Callable[[Root], None] | None = None
        """Called with each root found from a document (configure it, start indexing)."""
        self.home: Root | None = None
        """The root of the user-wide store alone, once a memory file or draft of that store
        was opened with no root of a folder serving it (:meth:`for_memory_file`)."""
        self._looks: dict[str, NestedLook] = {}
        """The look for nested repositories of each root's repository, kept between looks."""

    def __iter__(self) -> Iterator[Root]:
        return iter(list(self._roots))

    def __len__(self) -> int:
        return len(self._roots)

    def add(self, folder: Path) -> Root | None:
        """Add a workspace folder; folders of one repository share a root. A root whose
        user-wide store cannot be used as ``TETHER_HOME`` is set up (inside its repository, a
        file) serves its project's memories without it, said to the user; None, said too,
        when that leaves a folder with no store at all (no repository either): the server
        goes on for the other folders."""
        folder = Path(os.path.abspath(folder))
        for root in self._roots:
            if folder in root.folders:
                return root
        try:
            location = project_location(folder)
        except NotFound:
            location = None
        except (UnsafeStore, StoreInGitFolder) as error:  # its store left alone, said once
            self.notice(str(error))
            location = None
        except WorkTreeOfAnother as error:  # a setting for the person to fix: shown, once
            self.shown(str(error), f"no project memories for {folder}: {error}")
            location = None
        for root in self._roots:
            if location is not None and root.location == location:
                root.folders.append(folder)
                return root
        if location is None:
            try:
                global_location(folder)
            except HomeUnusable as error:
                self.shown(str(error), f"no memories for {folder}: {error}")
                return None
        root = Root(folder, location, session=self.session, notice=self.notice)
        if root.global_unavailable is not None:
            self.shown(
                root.global_unavailable,
                f"user-wide memories are not available for {folder}: {root.global_unavailable}; "
                "its project's memories are served without them",
            )
        self._roots.append(root)
        return root

    def remove(self, folder: Path) -> Root | None:
        """Remove a workspace folder; returns the root when it had no folder left (closed)."""
        folder = Path(os.path.abspath(folder))
        for root in self._roots:
            if folder in root.folders:
                root.folders.remove(folder)
                if not root.folders:
                    self._roots.remove(root)
                    self._looks.pop(str(root.repo_root), None)
                    root.close()
                    return root
        return None

    def for_path(self, path: Path) -> Root | None:
        """The root a file belongs to: the deepest folder holding it (compared resolved too,
        :func:`lsp_server.roots.reaches`), unless the file is in
        a repository nested inside that folder's with a store of its own (the innermost
        store owns a file, as for the CLI run beside it), found and added once."""
        best: tuple[int, Root] | None = None
        for root in self._roots:
            for folder in root.folders:
                if reaches(path, folder) and (best is None or len(folder.parts) > best[0]):
                    best = (len(folder.parts), root)
        if best is not None:
            return self._nested(best[1], path) or best[1]
        if self.discover:
            found = next((r for r in self._roots if r.relative(path) is not None), None)
            if found is not None:
                return found
            try:
                location = project_location(path.parent)
            except (NotFound, UnsafeStore, StoreInGitFolder, WorkTreeOfAnother):
                return None
            root = self.add(location.repo_root or path.parent)
            if root is not None and self.on_added is not None:
                self.on_added(root)
            return root
        return None

    def _nested(self, root: Root, path: Path) -> Root | None:
        """The root of a repository below ``root``'s that holds ``path`` and has a store of its
        own (added now, set up as a root found from a document), or None."""
        outer = root.location.repo_root if root.location is not None else None
        if outer is None:
            return None
        try:
            location = project_location(path.parent)
        except (NotFound, UnsafeStore, StoreInGitFolder, WorkTreeOfAnother):
            return None
        inner = location.repo_root
        if inner is None or inner == outer or not is_within(inner, outer):
            return None
        if not location.memories_dir.is_dir():  # no store of its own: the outer one names it
            return None
        folder = Path(os.path.abspath(inner))
        new = not any(folder in known.folders for known in self._roots)
        nested = self.add(folder)
        if nested is not None and new and self.on_added is not None:
            self.on_added(nested)
        return nested

    def named_by_client(self) -> list[Root]:
        """The roots of the folders the client named or documents led to (not :attr:`home`)."""
        return [root for root in self._roots if root is not self.home]

    def for_memory_file(self, path: Path) -> tuple[Root, MemoryStore] | None:
        """The root and store whose memory folder (or drafts folder) holds ``path``; for one of
        the user-wide store that no root serves, :attr:`home` (see :meth:`_user_wide`)."""
        for root in self._roots:
            store = root.memory_store_of(path)
            if store is not None:
                return root, store
        return self._user_wide(path)

    def _user_wide(self, path: Path) -> tuple[Root, MemoryStore] | None:
        """The root of the user-wide store alone, made once (set up as a root found from a
        document), for ``path`` when it is a memory file or draft of that store: the store is
        known from ``TETHER_HOME`` (or the user data folder) whatever the workspace folders, and
        a client may start a server with none for such a file (Neovim does, for a file with no
        root marker above it). None for any other path, or when that store cannot be used
        there (said once, as for a folder)."""
        if path.suffix != ".md" or self.home is not None:
            return None
        try:
            check_home()
        except BadInput:
            return None
        base = global_base()
        location = Location(GLOBAL, base, None)
        folders = {os.path.realpath(f) for f in (location.memories_dir, drafts_dir(location))}
        if os.path.realpath(path.parent) not in folders:
            return None
        root = Root(base, None, session=self.session, notice=self.notice)
        if root.global_store is None:
            reason = root.global_unavailable or ""
            root.close()
            self.shown(reason, f"no memories for {path}: {reason}")
            return None
        self.home = root
        self._roots.append(root)
        if self.on_added is not None:
            self.on_added(root)
        return root, root.global_store

    def find(self, ref: str, prefer: Root | None = None) -> tuple[Root, MemoryStore, Memory]:
        """A memory by id across the roots (``prefer`` first), then in the stores of the
        repositories nested in them not found yet (no file of theirs opened: looked for each
        time an id is in none of the stores known, so that one set up since is found,
        :meth:`_nested_in`); NotFound when absent, naming where the look stopped."""
        ordered = ([prefer] if prefer else []) + [r for r in self._roots if r is not prefer]
        for root in ordered:
            found = root.find(ref)
            if found is not None:
                return root, found[0], found[1]
        cut_short: list[Path] = []
        for root in list(self._roots):
            for nested in self._nested_in(root, cut_short):
                found = nested.find(ref)
                if found is not None:
                    return nested, found[0], found[1]
        ordered = ([prefer] if prefer else []) + [r for r in self._roots if r is not prefer]
        why = why_not_found([store for root in ordered for store in root.stores()], ref)
        if why is not None:
            raise NotFound(why)
        message = f"no memory {ref!r} in this workspace; `tether list --scope all` shows ids"
        if cut_short:
            folders = ", ".join(str(path) for path in cut_short)
            message += (
                f" (repositories nested deep in {folders} were not all looked through: open "
                "one of their files to reach their memories)"
            )
        raise NotFound(message)

    def _nested_in(self, root: Root, cut_short: list[Path]) -> list[Root]:
        """The roots of the repositories nested in ``root``'s with a store of their own, found
        the way opening one of their files finds them (:meth:`_nested`) and added
        (:class:`lsp_server.nested_look.NestedLook`: ``root``'s repository is added to
        ``cut_short`` when it has more folders than the look goes through). Each look sees the
        folders as they are now, so a store set up since the last one is found, but lists only
        those changed since (one found before is a root now, reached without a look)."""
        base = root.location.repo_root if root.location is not None else None
        if base is None:
            return []
        look = self._looks.setdefault(str(base), NestedLook(str(base)))
        seen = look.look()
        if seen.cut_short:
            cut_short.append(base)
        found: list[Root] = []
        for folder in seen.repositories:
            nested = self._nested(root, Path(folder) / ".git")
            if nested is not None and nested is not root:
                found.append(nested)
        return found

    def close(self) -> None:
        """Close every root."""
        for root in self._roots:
            root.close()
        self._roots.clear()
        self._looks.clear()
        self.home = None
