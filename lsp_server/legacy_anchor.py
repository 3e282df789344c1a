"""The single-name ``anchor`` (a symbol or line range inside the memory's file) a write from the
editor gives its memory: the one given, else a superseded memory's own unless ``anchors`` is
given (``[]`` drops every symbol anchor, this one too). Never one on a memory that names no
file: it would point inside nothing. A bare name the memory's one file defines is written as
that file's symbol anchor instead (:func:`bare_symbol`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server.command_args import text
from lsp_server.documents import open_texts
from recall.anchors.symbols import SymbolAnchor
from recall.anchors.write import bare_name_anchor, record_anchors
from recall.errors import BadInput
from recall.model import Memory
from recall.store import MemoryStore

if TYPE_CHECKING:
    from lsp_server.server import TetherServer


def anchor_name(obj: dict[str, Any], files: list[str], old: Memory | None = None) -> str | None:
    """The ``anchor`` of the memory a command writes with ``files``, carried from ``old`` (the
    memory it supersedes) unless ``anchor`` or ``anchors`` is given or no file is left; a
    refusal naming ``anchor`` when one is given for a memory of no file."""
    given = text(obj, "anchor")
    if given is None:
        carried = None if old is None or obj.get("anchors") is not None else old.anchor
        return carried if files else None  # the old files left out: so is what was in them
    if given and not files:
        raise BadInput(
            f"'anchor' {given!r} names a symbol or line range inside the memory's file, but the "
            "memory names no file: give the file in 'files' too, or the symbol in 'anchors' as "
            '"PATH::NAME"'
        )
    return given or None


def bare_symbol(
    ls: TetherServer, store: MemoryStore, obj: dict[str, Any], anchor: str | None, own: list[str]
) -> tuple[str | None, tuple[SymbolAnchor, ...], list[str]]:
    """The ``anchor`` a command writes (:func:`anchor_name`), the symbol anchors it stands
    for, and a note: a bare name given in ``anchor`` with one file of the memory's own
    (``own``: named, or carried over, not an anchor's) that defines it is that file's symbol
    anchor ``FILE::NAME``, which follows the code, as ``tether remember --anchor NAME`` with
    one ``--file`` makes it; any other stays the name as given, with a note saying why. A file
    the editor holds open is read from its text, saved or not."""
    given = text(obj, "anchor")
    if not given or anchor is None:
        return anchor, (), []
    root = store.repo_root
    held = open_texts(ls, root)
    pair, note = bare_name_anchor(
        root,
        own,
        given,
        option="'anchor'",
        file_option="file",
        instead="\"{}\" in 'anchors'",
        held=held,
    )
    if pair is None:
        return anchor, (), [note] if note else []
    anchors, notes = record_anchors(root, [pair], held=held)
    return None, anchors, notes
