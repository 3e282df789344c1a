"""Why saving a draft writes no memory when a direct write of its text would be refused: the
checks every writer makes (:mod:`recall.written_checks`), each refusal placed on the line of
the draft it is about."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsp_server.drafts import supersede_command
from lsp_server.secret_words import SECRET_OVERRIDE
from recall.frontmatter import line_of
from recall.written_checks import refusals

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


def refused(store: MemoryStore, text: str, memory: Memory) -> list[tuple[int, str]]:
    """Each refusal of ``memory``, the draft ``text`` read, as (1-based line, message): in the
    command's words, a credential masked. The line is counted in ``text`` itself, as ``tether
    doctor`` counts it (a lone CR ends a line there, not in the parse of it)."""
    found = refusals(store, memory, replace=supersede_command, secret_override=SECRET_OVERRIDE)
    return [(line_of(text, refusal.field), refusal.message) for refusal in found]
