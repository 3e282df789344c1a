"""What a write would refuse of a memory a person wrote out as a whole file (a draft saved in
the editor), field by field: the checks every writer makes (the CLI's ``remember``, the MCP
``memory_write``, the editor's command), run on the fields as read from the file, so such a
file is never written past them: text shaped like a credential, a control character, a summary
another memory holds differently, the same knowledge as another memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from recall.errors import BadInput, NothingToDo
from recall.extra_keys import secret_refusal
from recall.same_summary import refuse_same_summary
from recall.text_checks import check_text

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore

NEUTRAL_SUMMARY = "-"
"""The summary a field is checked beside when it is not the summary itself: one that passes
every check, so a refusal names the field checked and only it."""


@dataclass(frozen=True)
class Refusal:
    """One field of a memory a write refuses, and why, in the writers' words."""

    field: str
    """``summary``, ``details``, ``files``, ``author``, ``anchor``, ``anchors`` or a key of
    the person's own (a refusal of the whole text, a duplicate or a summary held elsewhere, is
    the summary's)."""
    message: str


def refusals(
    store: MemoryStore,
    memory: Memory,
    *,
    replace: Callable[[str], str],
    secret_override: str,
) -> list[Refusal]:
    """What writing ``memory`` (its id and the memory it supersedes being its own: a file
    saved again, a replacement) as a new memory of ``store`` would refuse: each field checked
    by :meth:`MemoryStore.prepare_memory` alone, so every field at fault is named, and then, the
    fields clean, a summary another memory holds differently (``replace(its id)`` says how to
    supersede that one) and an exact duplicate. ``secret_override`` says how to write a
    credential-shaped text anyway."""
    own = {
        "summary": {"summary": memory.summary},
        "details": {"details": memory.details},
        "files": {"files": list(memory.files)},
        "author": {"author": memory.author},
        "anchor": {"anchor": memory.anchor},
        "anchors": {"symbols": [anchor.text for anchor in memory.anchors]},
    }
    found = []
    for field, given in own.items():
        try:
            store.prepare_memory(
                **{
                    "summary": NEUTRAL_SUMMARY,
                    "category": memory.category,
                    "files": [],
                    "source": memory.source,
                    "secret_override": secret_override,
                    **given,
                }
            )
        except BadInput as refused:
            found.append(Refusal(field, str(refused)))
    try:  # as the CLI's --author and the editor's author argument are
        check_text(memory.author, "author")
    except BadInput as refused:
        found.append(Refusal("author", str(refused)))
    for key, value in memory.extra.items():  # as an import's keys of its own are
        if said := secret_refusal({key: value}, override=secret_override):
            found.append(Refusal(key, said))
    if found:
        return found
    mine = [memory.id, *([memory.supersedes] if memory.supersedes else [])]
    try:
        refuse_same_summary(store.conn, memory, replace, other_than=mine)
    except NothingToDo as held:
        return [Refusal("summary", str(held))]
    duplicate = store.duplicate(memory.content_hash, other_than=mine)
    if duplicate is not None:
        held_by, status = duplicate["id"], duplicate["status"]
        message = f"already known as {held_by} ({status}), in {store.path_of(held_by)}"
        return [Refusal("summary", message)]
    return []
