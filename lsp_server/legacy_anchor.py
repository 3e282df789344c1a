"""The single-name ``anchor`` (a symbol or line range inside the memory's file) a write from the
editor gives its memory: the one given, else a superseded memory's own unless ``anchors`` is
given (``[]`` drops every symbol anchor, this one too). Never one on a memory that names no
file: it would point inside nothing."""

from __future__ import annotations

from typing import Any

from lsp_server.command_args import text
from recall.errors import BadInput
from recall.model import Memory


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
