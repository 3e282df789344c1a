"""The supersede links of the lines ``tether import`` wrote, checked once every line is in.

A line that asks for an id another memory already holds is written under a new one (a note
says so). A link of the same import naming that id means the line's memory, not the memory
that held the id before: it is rewritten to the id that line's memory has now (its new id, or
the memory it duplicates), and the line holding the link says so. When lines ending in two
memories asked for the id, which one is meant cannot be told: the link is left as written and
the line says so, with what to do; so it is when only a rejected line asked for the id. Then
each link that names an id in neither store is noted (:mod:`recall.lifecycle.links`); the
memories are written all the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from recall.importer import LineResult
from recall.lifecycle.links import (
    LINK_KEY,
    REPLACES_KEY,
    dangling_message,
    in_a_store,
    replaced_message,
    stray_link_message,
)
from recall.model import is_valid_id
from recall.store import MemoryStore


def _claims(results: Sequence[LineResult]) -> dict[str, list[LineResult]]:
    """The lines that were written or found duplicate, by the valid id each asked for."""
    claims: dict[str, list[LineResult]] = {}
    for result in results:
        wanted = result.wanted
        if result.status in ("created", "duplicate") and wanted and is_valid_id(wanted):
            claims.setdefault(wanted, []).append(result)
    return claims


def _rejected(results: Sequence[LineResult]) -> dict[str, list[LineResult]]:
    """The lines that were refused, by the valid id each asked for."""
    refused: dict[str, list[LineResult]] = {}
    for result in results:
        asked = result.record_id
        if result.status == "error" and asked and is_valid_id(asked):
            refused.setdefault(asked, []).append(result)
    return refused


def _lines(claimants: Sequence[LineResult]) -> str:
    """``line 3`` or ``lines 3 and 5`` (or ``lines 2, 3 and 5``)."""
    numbers = [str(result.line) for result in claimants]
    if len(numbers) == 1:
        return f"line {numbers[0]}"
    return f"lines {', '.join(numbers[:-1])} and {numbers[-1]}"


def follow_moved_ids(results: Sequence[LineResult], stores: dict[str, MemoryStore]) -> None:
    """Point each written line's ``supersedes`` and ``superseded_by`` that names an id some
    line of this import asked for and did not get at that line's memory (rewriting its file
    and noting it on the line), or note that it is left as written when lines ending in
    different memories asked for the id, or when only a rejected line asked for it."""
    claims, refused = _claims(results), _rejected(results)
    if not claims and not refused:
        return
    for result in results:
        if result.status != "created" or result.id is None or result.scope not in stores:
            continue
        for key in (REPLACES_KEY, LINK_KEY):
            target = getattr(result, key)
            claimants = [c for c in claims.get(target or "", []) if c is not result]
            ends = list(dict.fromkeys(c.id for c in claimants))
            where = f" in {result.path}" if result.path is not None else ""
            if not claimants and target in refused:
                result.notes.append(
                    f"{key} {target!r} is the id {_lines(refused[target])} of this import "
                    f"asked for, which was rejected: the link is left naming {target}; import "
                    f"that line again once it is fixed, or write the right id as its {key}{where}"
                )
                continue
            if not claimants or ends == [target]:
                continue  # no line asked for it, or every one that did has it
            if len(ends) == 1 and ends[0] is not None:
                memory_id = ends[0]
                stores[result.scope].update_fields(result.id, {key: memory_id})
                setattr(result, key, memory_id)
                result.notes.append(
                    f"{key} {target!r} is the id {_lines(claimants)} of this import asked for, "
                    f"whose memory is {memory_id}: linked to {memory_id}"
                )
                continue
            result.notes.append(
                f"{key} {target!r} is the id {_lines(claimants)} of this import asked for, "
                f"whose memories are {', '.join(str(end) for end in ends)}: which one is meant "
                f"cannot be told, so the link is left naming {target}; write the right id as "
                f"its {key}{where}"
            )


def note_dangling(results: Sequence[LineResult], everywhere: Sequence[MemoryStore]) -> None:
    """Note on each written line a link naming an id in none of ``everywhere`` (checked once
    every line is written, so one written later in the file is found): a superseded memory
    is then out of recall with nothing in its place (a memory of another status is not, and
    its note says what it is), and a ``supersedes`` leads nowhere."""
    for result in results:
        if result.status != "created" or result.id is None:
            continue
        if result.superseded_by and not in_a_store(result.superseded_by, everywhere):
            status, target = result.memory_status, result.superseded_by
            if status == "superseded":
                result.notes.append(dangling_message(result.id, target, result.path))
            else:  # not out of recall for the link: said as what it is
                message = stray_link_message(result.id, status or "active", target, result.path)
                result.notes.append(message)
        if result.supersedes and not in_a_store(result.supersedes, everywhere):
            result.notes.append(replaced_message(result.id, result.supersedes, result.path))
