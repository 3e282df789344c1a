"""Memory files a store cannot load (a hand edit or a merge that broke one): each is said in the
client's log once, each worded as the CLI's ``skipped …`` line (how many are named differs:
see :data:`NAMED_AT_ONCE`), and again only
when it is broken another way after a change, never on every keystroke. The file itself, when
opened, gets its front-matter diagnostics (:mod:`lsp_server.memory_documents`)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Final

from recall.errors import TetherError

if TYPE_CHECKING:
    from lsp_server.roots import Root
    from lsp_server.server import TetherServer

NAMED_AT_ONCE: Final = 20
"""Broken files named one by one in one look, the rest counted: a pull that broke hundreds
(a bad merge of the whole folder) is one thing to fix, and `tether doctor` lists them all.
More than the CLI's ``SKIPPED_NAMED`` (3) on purpose: the log says it once per change, out of
the way, where the CLI says it above its own output on every command."""


def tell(ls: TetherServer, roots: list[Root]) -> None:
    """Log the memory files of ``roots``' stores that cannot be loaded and were not told yet
    (a file fixed and broken again is told again)."""
    for root in roots:
        found = _broken(root)
        if found is None:
            continue
        new = [text for key, text in found.items() if key not in root.told_broken]
        root.told_broken = set(found)
        for text in new[:NAMED_AT_ONCE]:
            ls.warn(f"skipped {text} (fix the file; it is read again once it changes)")
        if len(new) > NAMED_AT_ONCE:
            more = len(new) - NAMED_AT_ONCE
            ls.warn(f"skipped {more} more memory files that cannot be loaded: `tether doctor`")


def _broken(root: Root) -> dict[tuple[str, int, str], str] | None:
    """The files of ``root``'s stores that cannot be loaded, by (path, line, problem), as the
    CLI words each; None when a store cannot be read now (a publish says that)."""
    found: dict[tuple[str, int, str], str] = {}
    for store in root.stores():
        if not store.exists:
            continue
        try:
            problems = store.problems()
        except (TetherError, sqlite3.Error):
            return None
        for problem in problems:
            found[(str(problem.path), problem.line, problem.message)] = str(problem)
    return found


def roots_in_view(ls: TetherServer) -> list[Root]:
    """The roots with a document open or published for (the ones whose stores are read)."""
    seen: dict[int, Root] = {}
    for doc in ls.docs.values():
        seen.setdefault(id(doc.root), doc.root)
    return list(seen.values())
