"""What an agent is given of a memory: a credential in the memory's text is masked.

``tether remember`` and the other writes refuse credential-shaped text, but a memory file
written or edited by hand (or written with ``--allow-secret``: the file keeps no record of
which) may hold an access key, a password in a URL or a token. Whatever Tether puts into an
agent's context, unasked or through its tools (``tether inject`` and the prompt hook, the edit
hooks' warnings and guard questions, ``tether recall``, the MCP tools, the language server's
diagnostics), and what agents and scripts read from the other commands (``cleanup --json``,
``session start``, ``check``, ``pending``, the memory a change of state gives back with
``--json``), shows such a span masked as a refusal shows it (``AKIAIOSF…[20 chars]``: see
:func:`recall.secret_masking.masked`; ``secret_masked`` in JSON), and the person is told which
file holds it. The file is never rewritten: it is the person's, and ``tether show``, ``list``,
``search`` and ``export`` show it as written.

The index says which memories hold one (:attr:`recall.model.Memory.holds_secret`, scanned when
the file was indexed), so a memory without costs a look at a flag and the scanner is loaded
only to mask one that does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall.model import Memory

if TYPE_CHECKING:  # annotations only: the edit hooks use this module without the ranker
    from recall.ranking.hits import Hit
    from recall.store import MemoryStore

_MASKED = "masked_for_agent"
"""The mark :func:`for_agent` leaves on a masked copy, so that masking it again is a no-op."""


def for_agent(memory: Memory) -> Memory:
    """``memory`` as an agent is given it: its summary and details with each credential-shaped
    span masked when :attr:`~recall.model.Memory.holds_secret`; ``memory`` itself otherwise.
    The masked copy keeps the memory's content hash (that of the text as written)."""
    if not memory.holds_secret or memory.__dict__.get(_MASKED):
        return memory
    from recall.secret_masking import masked  # the scanner: only for a memory holding one
    from recall.secret_names import masked_names

    copy = memory.with_changes(
        summary=masked(memory.summary),
        details=masked(memory.details),
        anchor=masked(memory.anchor) if memory.anchor else memory.anchor,
        **masked_names(memory),
    )
    if "content_hash" in memory.__dict__:
        copy.__dict__["content_hash"] = memory.__dict__["content_hash"]
    copy.__dict__["holds_secret"] = True  # the memory's verdict, not the masked text's
    copy.__dict__[_MASKED] = True
    return copy


def name_for_agent(memory: Memory, text: str) -> str:
    """``text`` naming ``memory``'s files or anchors (a receipt: ``via file …``) as an agent
    is given it: a vendor's token in it masked when the memory holds a credential; ``text``
    itself, with no scan, when it holds none."""
    if not memory.holds_secret:
        return text
    from recall.secret_names import masked_name  # the scanner: only for a memory holding one

    return masked_name(text)


def was_masked(memory: Memory) -> bool:
    """Whether ``memory`` is a copy :func:`for_agent` masked."""
    return bool(memory.__dict__.get(_MASKED))


def marked(data: dict[str, Any], memory: Memory) -> dict[str, Any]:
    """``data`` (the JSON form of ``memory``) with ``secret_masked: true`` when ``memory`` is
    a copy :func:`for_agent` masked; ``data`` itself, changed in place."""
    if was_masked(memory):
        data["secret_masked"] = True
    return data


def record_for_agent(memory: Memory) -> dict[str, Any]:
    """Every field of ``memory`` (:meth:`~recall.model.Memory.to_dict`) as an agent or a
    script is given it: its text masked when it holds a credential, with ``secret_masked``."""
    shown = for_agent(memory)
    return marked(shown.to_dict(), shown)


REMOVE_ADVICE = "remove it from the file (say where the secret lives instead)"
"""What to do about a credential in a memory file."""

MASKED_ADVICE = f"{REMOVE_ADVICE}; `tether doctor` names the line"
"""What to do, as a note about a masked memory ends."""


def masked_note(memory_id: str, path: Path | str) -> str:
    """The note telling the person that a memory's text was masked in what an agent was given,
    naming its file ``path`` and what to do."""
    return (
        f"{path}: memory {memory_id} holds what looks like a credential (in its text or a "
        f"name it gives), shown masked; {MASKED_ADVICE}"
    )


def mask_hits(hits: Sequence[Hit]) -> list[Hit]:
    """Give each of ``hits`` its memory as an agent is given it (:func:`for_agent`), in place;
    return those whose memory was masked."""
    masked = []
    for hit in hits:
        shown = for_agent(hit.memory)
        if shown is not hit.memory:
            hit.memory = shown
            masked.append(hit)
    return masked


def masked_notes(hits: Sequence[Hit], stores: Sequence[MemoryStore]) -> list[str]:
    """A :func:`masked_note` for each of ``hits`` whose memory was masked, naming its file in
    the store of ``stores`` it came from."""
    by_scope = {store.scope: store for store in stores}
    notes = []
    for hit in hits:
        if was_masked(hit.memory) and hit.scope in by_scope:
            notes.append(masked_note(hit.memory.id, file_of(by_scope[hit.scope], hit.memory.id)))
    return notes


def file_of(store: MemoryStore, memory_id: str) -> Path:
    """The file holding ``memory_id`` in ``store``; its memory folder when the memory left the
    index since it was read (a note must not fail the answer it goes with)."""
    from recall.errors import NotFound

    try:
        return store.path_of(memory_id)
    except NotFound:
        return store.location.memories_dir


def masked_file(
    stores: Sequence[MemoryStore], scope: str, memory: Memory, notice: Callable[[str], None]
) -> str | None:
    """The file of ``memory`` (of the store of ``stores`` with ``scope``) when its text holds a
    credential, given to ``notice`` in a :func:`masked_note` for the person; None for any
    other memory, whose file is not looked up."""
    if not memory.holds_secret:
        return None
    store = next((s for s in stores if s.scope == scope), None)
    if store is None:
        return None
    path = file_of(store, memory.id)
    notice(masked_note(memory.id, path))
    return str(path)
