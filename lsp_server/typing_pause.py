"""A change to a code document: its kept parse carried through the change, its diagnostics
published, and the text parsed again once typing pauses.

A keystroke is placed from the last parse moved by the lines it added or removed
(:mod:`lsp_server.doc_parse`), which puts a diagnostic where the parse found its definition
unless the edit rewrote the definition's own lines. The parse of the text itself waits until no
change came for :data:`PARSE_PAUSE_SECONDS`, and its placement is published only if it differs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsp_server import diagnostics, doc_parse
from lsp_server.documents import DocState, current_text

if TYPE_CHECKING:
    from lsprotocol import types

    from lsp_server.server import TetherServer

PARSE_PAUSE_SECONDS = 0.3
"""How long typing must pause before the document is parsed again: longer than the gap
between a person's keystrokes (about 0.1-0.2 s at speed), so a burst of typing pays no parse,
and short enough that a diagnostic moved by an edit of its definition is put right before the
eye has left the edit."""


def changed(
    ls: TetherServer, doc: DocState, changes: Sequence[types.TextDocumentContentChangeEvent]
) -> None:
    """``doc`` changed by ``changes`` (already applied to the editor's copy): carry its parse
    through them, publish, and parse again once typing pauses."""
    if doc.reparse is not None:
        doc.reparse.cancel()
        doc.reparse = None
    text = current_text(ls, doc)
    if text is not None and doc_parse.follow(doc, changes, text):
        loop = asyncio.get_running_loop()
        doc.reparse = loop.call_later(PARSE_PAUSE_SECONDS, _paused, ls, doc)
    diagnostics.publish_changed(ls, doc)


def _paused(ls: TetherServer, doc: DocState) -> None:
    doc.reparse = None
    if ls.docs.get(doc.uri) is doc:
        diagnostics.place_again(ls, doc)
