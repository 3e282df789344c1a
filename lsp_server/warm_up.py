"""The open of a crowded file ranked ahead: after the start-up indexing, the files most memories
name get the ranking their first open would make, one file at a time between messages.

A file's first publish in a session is one recall over every memory naming it, and on the
files most memories name (a changelog, a core module: thousands of memories) that is most of
an open's cost. Those are also the files the history changed most, so the ones an editor is
likely to open. The ranking made here is the one :func:`lsp_server.diagnostics.candidates`
would make at that moment, kept where it keeps its own (:attr:`Root.candidates`), so whatever
drops those (a memory written, the genome refreshed, the settings changed) drops these too;
nothing is ranked again after that until a file is opened.

When a memory that ranking would show anchors a symbol, the open places it on the document's
parse (tree-sitter: about 35 ms for a C file of 6,000 lines, as much as the rest of the open);
so the file as it is on disk is parsed here too, and an open whose document holds that very
text takes the parse (:func:`lsp_server.doc_parse.parse_of`), as an editor opening a file
usually does.

Each file is ranked, then parsed, on the main thread (a :class:`MemoryStore` is used by one
thread), between two messages: a message that arrives meanwhile waits for one file's ranking or
parse at most.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import TYPE_CHECKING

from lsp_server import diagnostics
from lsp_server.anchors import is_line_range
from lsp_server.configuration import PARSE_AHEAD_MAX_BYTES
from lsp_server.doc_parse import DocumentParse
from lsp_server.roots import Root
from lsp_server.symbol_at import grammar_definitions
from recall.errors import TetherError
from recall.ranking.engine import Hit

if TYPE_CHECKING:
    from lsp_server.server import TetherServer

WARM_GAP_SECONDS = 0.05
"""Pause between two files ranked ahead: messages that came during one file's ranking are
handled before the next begins."""

# The path index alone (a tenth of the time of a join that counts active memories only: 18
# against 180 ms at 90,000 file names): which files to rank ahead is a guess either way.
MOST_NAMED = "SELECT path FROM memory_files GROUP BY path ORDER BY count(*) DESC, path LIMIT ?"


def most_named(root: Root, count: int) -> list[str]:
    """The ``count`` files of the working tree that the most project memories name (archived
    and superseded ones counted too), most named first (ties by path)."""
    project = root.project
    if count <= 0 or project is None or not project.exists:
        return []
    signals = root.signals()
    # a few more than asked: some of the most named may be gone from the working tree
    found = [p for (p,) in project.conn.execute(MOST_NAMED, (count * 2,))]
    return [p for p in found if signals.exists(p)][:count]


def needs_parse(hits: list[Hit]) -> bool:
    """Whether placing any of ``hits`` may ask for the document's parse: a memory anchoring a
    symbol, or whose older single anchor is not a line range
    (:func:`lsp_server.placement.span_of`)."""
    return any(
        h.memory.anchors or (h.memory.anchor and not is_line_range(h.memory.anchor)) for h in hits
    )


def parse_ahead(root: Root, rel: str) -> bool:
    """Parse the file ``rel`` of ``root`` as it is on disk and keep the parse for its first
    open (:attr:`Root.parsed_ahead`); tell whether it was kept. Nothing is kept for a file
    no grammar reads, one that cannot be read as UTF-8 text, one past ``maxDocumentChars`` (no
    memories are shown for it) or :data:`PARSE_AHEAD_MAX_BYTES` (its parse would hold the
    messages back for long)."""
    path = root.base / rel
    limit = root.settings.max_document_chars
    try:
        size = path.stat().st_size
        if size > PARSE_AHEAD_MAX_BYTES or size > limit * 4:  # UTF-8: at most 4 bytes a char
            return False
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if len(text) > limit or "\x00" in text:
        return False
    definitions = grammar_definitions(rel, text)
    if definitions is None:  # placed by the anchor's own search: nothing to keep
        return False
    root.parsed_ahead[rel] = DocumentParse(text, definitions)
    return True


class WarmUp:
    """Ranks the most-named files of each root ahead of their first open."""

    def __init__(self, ls: TetherServer) -> None:
        self.ls = ls
        self.pending: dict[int, asyncio.TimerHandle] = {}
        """The next step of each root's warm-up, by root identity."""
        self.started: set[str] = set()
        """Roots (by base folder) whose warm-up was started this lifetime."""
        self.parsed: dict[int, int] = {}
        """Files parsed ahead so far in each root's warm-up, by root identity."""
        self.stopping = False

    def start(self, root: Root) -> None:
        """Rank the root's most-named files ahead, from the next turn of the loop: once per
        root and server lifetime (a later indexing, after a turn's commits, ranks nothing
        ahead: the rankings it dropped are made again when a file is opened)."""
        count = root.settings.warm_files
        key = str(root.base)
        if self.stopping or count <= 0 or key in self.started:
            return
        self.started.add(key)
        loop = asyncio.get_running_loop()
        self.pending[id(root)] = loop.call_later(WARM_GAP_SECONDS, self._list, root, count)

    def _list(self, root: Root, count: int) -> None:
        self.pending.pop(id(root), None)
        if not self._current(root):
            return
        try:
            paths = most_named(root, count)
        except (TetherError, sqlite3.Error, OSError) as error:
            self.ls.warn(f"files to rank ahead not listed ({error})")
            return
        self._next(root, paths, 0)

    def _next(self, root: Root, paths: list[str], done: int) -> None:
        if done == len(paths):
            parsed = self.parsed.pop(id(root), 0)
            if paths:
                self.ls.log(
                    f"{len(paths)} files most memories name ranked ahead in {root.base}, "
                    f"{parsed} of them parsed"
                )
            return
        loop = asyncio.get_running_loop()
        self.pending[id(root)] = loop.call_later(WARM_GAP_SECONDS, self._step, root, paths, done)

    def _step(self, root: Root, paths: list[str], done: int) -> None:
        self.pending.pop(id(root), None)
        if not self._current(root):
            return
        path = paths[done]
        try:
            diagnostics.prepare(self.ls, root, path, "open")
        except (TetherError, sqlite3.Error, OSError) as error:
            self.ls.warn(f"{path} not ranked ahead ({error})")
            return
        opened = any(d.root is root and d.rel == path for d in self.ls.docs.values())
        if not opened and needs_parse(root.candidates.get(("open", path), [])):
            loop = asyncio.get_running_loop()
            self.pending[id(root)] = loop.call_later(
                WARM_GAP_SECONDS, self._parse, root, paths, done
            )
            return
        self._next(root, paths, done + 1)

    def _parse(self, root: Root, paths: list[str], done: int) -> None:
        self.pending.pop(id(root), None)
        if not self._current(root):
            return
        if parse_ahead(root, paths[done]):
            self.parsed[id(root)] = self.parsed.get(id(root), 0) + 1
        self._next(root, paths, done + 1)

    def _current(self, root: Root) -> bool:
        """Whether the root is still served and the server not stopping."""
        return not self.stopping and root in list(self.ls.roots)

    def stop(self) -> None:
        """Drop every warm-up under way (shutdown)."""
        self.stopping = True
        for handle in self.pending.values():
            handle.cancel()
        self.pending.clear()
