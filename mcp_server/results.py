"""Shaping engine results into what a tool returns: plain JSON an agent reads field by field.

A recall hit and a list entry carry the one-line summary only (details are fetched with
``memory_get``, which counts as acting on the memory); a card carries everything. What a hit
or an entry shows lands in an agent's context as an injection does, so it is shown as the
hooks show it (:mod:`recall.policy.inject`): labelled with its author, stripped of control,
bidi and invisible characters, capped; the entry says when its summary was, and a card has it whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall.agent_text import for_agent, was_masked
from recall.lifecycle.disuse import seen_state
from recall.locations import PROJECT, created_message
from recall.model import Memory
from recall.policy.inject import AUTHOR_CAP, cap, clean_line
from recall.ranking.weights import SUMMARY_CAP

if TYPE_CHECKING:
    from recall.ranking.engine import Hit
    from recall.store import MemoryStore, WriteResult


def line(memory: Memory, scope: str) -> dict[str, Any]:
    """A memory in a list: id, category, summary, files and state, no details."""
    return {
        "id": memory.id,
        "category": memory.category,
        "summary": memory.summary,
        "files": list(memory.files),
        "pinned": memory.pinned,
        "status": memory.status,
        "scope": scope,
    }


def shown(memory: Memory, scope: str, path: object = None) -> dict[str, Any]:
    """:func:`line` as an agent is shown it unasked: the summary and ``author`` on one line
    without control, bidi or invisible characters, capped as an injected line caps them;
    ``summary_cleaned`` / ``summary_truncated`` say the summary was, and ``note`` that
    ``memory_get`` returns it whole. ``guard: true`` says a guarded memory (left out for one
    without). A credential in the summary is masked (``secret_masked``, and the note names the
    memory's file ``path``: :func:`secret_note`)."""
    memory = for_agent(memory)
    whole = clean_line(memory.summary)
    data = {
        **line(memory, scope),
        "summary": cap(whole, SUMMARY_CAP),
        "author": cap(clean_line(memory.author), AUTHOR_CAP),
    }
    # runs of spaces made one are layout, as an injected line has it; a character taken out
    # is not, and neither is a summary cut short
    if whole != " ".join(memory.summary.split()):
        data["summary_cleaned"] = True
    if len(whole) > SUMMARY_CAP:
        data["summary_truncated"] = True
    if memory.guard:  # an edit it covers stops for a person: the agent must know before
        data["guard"] = True
    notes = []
    if "summary_cleaned" in data or "summary_truncated" in data:
        whole_as = "with the credential masked" if was_masked(memory) else "as written"
        notes.append(f"memory_get with id {memory.id!r} returns the summary {whole_as}")
    if was_masked(memory):
        data["secret_masked"] = True
        notes.insert(0, secret_note(path))
    if notes:
        data["note"] = "; ".join(notes)
    return data


def secret_note(path: object) -> str:
    """Why a memory's text is masked in a tool's answer, naming its file ``path``, and what to
    do (:mod:`recall.agent_text`)."""
    where = f"the file {path}" if path else "its memory file"
    return (
        "it holds what looks like a credential (in its text or a name it gives), masked here "
        "(memory_get masks it too); "
        f"{where} keeps it as written: tell the person to remove it from that file"
    )


def listed(
    memory: Memory, scope: str, disused: dict[str, str | None], path: object = None
) -> dict[str, Any]:
    """A memory in a list as this user sees it (:func:`shown`, ``path`` its file): one in
    ``disused`` (id -> when this user's disuse archived it) is archived, with the file's own
    status as ``file_status``."""
    return {**shown(memory, scope, path), **seen_state(memory, disused)}


def card(memory: Memory, scope: str, path: object = None) -> dict[str, Any]:
    """A memory whole: the list fields plus details, anchor, guard, links and provenance; a
    credential in its text masked (``secret_masked``, with a ``note`` naming its file
    ``path``)."""
    memory = for_agent(memory)
    data = {
        **line(memory, scope),
        "details": memory.details,
        "anchor": memory.anchor,
        "anchors": [anchor.text for anchor in memory.anchors],
        "guard": memory.guard,
        "supersedes": memory.supersedes,
        "superseded_by": memory.superseded_by,
        "created": memory.created,
        "author": memory.author,
        "source": memory.source,
    }
    if was_masked(memory):
        data.update(secret_masked=True, note=secret_note(path))
    return data


def hit(found: Hit, path: object = None) -> dict[str, Any]:
    """A recalled memory as shown (:func:`shown`, ``path`` its file), the receipt saying why it
    surfaced (its paths on one line, as an injected receipt), and its score."""
    return {
        **shown(found.memory, found.scope, path),
        "receipt": clean_line(found.receipt),
        "score": round(found.score, 4),
    }


def written(result: WriteResult) -> dict[str, Any]:
    """The outcome of a write, as the CLI's ``--json`` gives it, and whether it ``written``:
    ``duplicate_of`` names the memory already holding the text, with what the write asked
    for that it lacks."""
    return {**result.to_dict(), "written": result.duplicate_of is None}


def set_up(store: MemoryStore) -> dict[str, Any]:
    """What a write of ``store`` set up on disk, said once: ``store_created`` (its path and what
    it means, as the CLI says it) when it made the repository's store, and ``ignore_rules``
    when it put the store's ignore rules in the clone's exclude file, the store's own
    ``.gitignore`` being committed on another branch (:mod:`recall.ignore_rules`)."""
    made, store.set_up = store.set_up, None
    said: dict[str, Any] = {}
    if made is None:
        return said
    if made.folders and store.scope == PROJECT:
        said["store_created"] = {
            "path": str(store.location.base),
            "message": created_message(store.location),
        }
    if made.rules_in_exclude is not None:
        said["ignore_rules"] = made.rules_in_exclude.to_dict()
    return said


def masked_throughout(answer: Any) -> Any:
    """A tool's ``answer`` with a vendor's token masked in every text of it, when it gives a
    memory masked (``secret_masked``): the names such a memory gives come back in more than
    its own fields (``anchors_gone``, ``anchor_states``, ``files_now``, notes); ``answer``
    itself, with no scan, when it gives none."""
    if not _gives_masked(answer):
        return answer
    from recall.secret_names import masked_name  # the scanner: only for a masked memory

    def mask(value: Any) -> Any:
        if isinstance(value, str):
            return masked_name(value)
        if isinstance(value, dict):
            return {mask(key): mask(item) for key, item in value.items()}
        if isinstance(value, list):
            return [mask(item) for item in value]
        return value

    return mask(answer)


def _gives_masked(value: Any) -> bool:
    """Whether ``value`` (a tool's answer) holds a memory given masked."""
    if isinstance(value, dict):
        return value.get("secret_masked") is True or any(map(_gives_masked, value.values()))
    if isinstance(value, list):
        return any(map(_gives_masked, value))
    return False
