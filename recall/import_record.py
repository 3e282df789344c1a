"""One line of a ``tether import``: its JSON read strictly, and the memory it asks for
checked as ``tether remember`` checks one (:func:`draft_record`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from recall.anchors.guards import check_guard
from recall.anchors.symbols import SymbolAnchor, anchors_from_records
from recall.anchors.write import record_anchors, refuse_separator_files
from recall.clock import parse_timestamp, utc_text
from recall.errors import BadInput
from recall.extra_keys import FIELD_KEYS, carried
from recall.import_scopes import scope_note
from recall.model import SOURCES, STATUSES, Memory, is_valid_id
from recall.record_size import check_fits
from recall.records import render_memory
from recall.store import MemoryStore
from recall.stored_rules import AS_STORED_KEY, as_stored_notes
from recall.strict_json import read_line
from recall.text_checks import check_no_nul, check_summary, check_text, refuse_blank_details

Normalize = Callable[[str], str]
"""Turns a path as a line gives it into the stored form (raising :class:`BadInput`)."""

DETAILS_KEY = 'the line\'s "details" key'
"""Where an import line puts the rest of a summary of more than one line (not the CLI's option)."""

WIDEST_ID = "00000000"
"""Sizes a line's file before it has its id: all digits, so quoted, as wide as any id gets."""


def read_record(raw: str) -> Any:
    """The JSON value of one line; :class:`BadInput` saying what is wrong when it is not JSON
    or an object in it gives a key twice (which one was meant cannot be told)."""
    if raw.startswith("\ufeff"):
        raise BadInput(
            "the line starts with a byte-order mark (U+FEFF), which only the start of a file "
            "may hold; remove it"
        )
    return read_line(raw)


def _check_id(value: Any, key: str) -> None:
    """Refuse an id in capitals: ids are lowercase, and one a user chose is not rewritten."""
    if isinstance(value, str) and not is_valid_id(value) and is_valid_id(value.lower()):
        raise BadInput(
            f"{key!r} {value!r} has capital letters, but memory ids are 8 lowercase hex "
            f"digits; use lowercase ({value.lower()!r}) to keep it"
        )


def draft_record(
    store: MemoryStore, record: Any, normalize: Normalize, author: str
) -> tuple[Memory, str | None, list[str]]:
    """The memory a line asks for, the id it asks for, and a note for each key it holds that
    is not stored; :class:`BadInput` saying what is wrong with the line."""
    if not isinstance(record, dict):
        raise BadInput("each line must be a JSON object")
    for key in ("id", "supersedes", "superseded_by"):
        _check_id(record.get(key), key)
    files = record.get("files", [])
    if isinstance(files, str):
        files = [files]
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise BadInput("'files' must be a list of paths")
    created = record.get("created")
    if created is not None:
        if not isinstance(created, str):
            raise BadInput("'created' must be an ISO-8601 string")
        created = utc_text(parse_timestamp(created, what="'created'"))
    for key in ("summary", "category"):
        if not isinstance(record.get(key), str):
            raise BadInput(f"'{key}' is required and must be a string")
    details = record.get("details")
    if details is not None and not isinstance(details, str):
        raise BadInput("'details' must be a string")
    refuse_blank_details(details, "'details'")
    pinned = record.get("pinned", False)
    if not isinstance(pinned, bool):
        raise BadInput("'pinned' must be true or false")
    as_stored = record.get(AS_STORED_KEY, False)
    if not isinstance(as_stored, bool):
        raise BadInput(f"{AS_STORED_KEY!r} must be true or false")
    anchor = record.get("anchor")
    if anchor is not None and not isinstance(anchor, str):
        raise BadInput("'anchor' must be a string")
    if not as_stored:  # a memory given back as stored: its rules said below, not refused
        check_text(anchor, "'anchor'")
    elif anchor is not None:
        check_no_nul(anchor, "'anchor'")
    given_anchors = anchors_from_records(record.get("anchors"))
    guard = record.get("guard", False)
    if not isinstance(guard, bool):
        raise BadInput("'guard' must be true or false")
    source = record.get("source") or "user"
    if source not in SOURCES:
        raise BadInput(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    status = record.get("status") or "active"
    if status not in STATUSES:
        raise BadInput(f"unknown status {status!r}; use one of {', '.join(STATUSES)}")
    links: dict[str, str | None] = {}
    for key in ("supersedes", "superseded_by"):
        value = record.get(key)
        if value is not None and not (isinstance(value, str) and is_valid_id(value)):
            raise BadInput(f"'{key}' must be a memory id (8 hex digits)")
        links[key] = value
    allow_secret = record.get("allow_secret", False)
    if not isinstance(allow_secret, bool):
        raise BadInput("'allow_secret' must be true or false")
    extra: dict[str, Any] = {}
    notes: list[str] = []
    written_elsewhere = scope_note(record, store.scope)
    if not record.keys() <= FIELD_KEYS:  # the set test alone for a line with none
        extra, notes = carried(record, allow_secret=allow_secret)
    # not the CLI's --details
    check_summary(record["summary"], details_option=DETAILS_KEY, as_stored=as_stored)
    given_author = record.get("author")
    if isinstance(given_author, str) and not as_stored:
        check_text(given_author, "'author'")
    elif isinstance(given_author, str):
        check_no_nul(given_author, "'author'")
    wanted = record.get("id")
    paths = [normalize(f) for f in files]
    # a line with an id is a memory coming back (an export): its anchors stay as they were
    anchors, anchor_notes = _anchors_recorded(
        store, given_anchors, normalize, hash_them=wanted is None
    )
    paths += [path for path in dict.fromkeys(a.path for a in anchors) if path not in paths]
    notes += anchor_notes
    draft = store.prepare_memory(
        summary=record["summary"],
        category=record["category"],
        files=paths,
        details=details,
        pinned=pinned,
        anchor=anchor,
        author=given_author if isinstance(given_author, str) else author,
        source=source,
        created=created,
        supersedes=links["supersedes"],
        allow_secret=allow_secret,
        symbols=[anchor.text for anchor in anchors],
        as_stored=as_stored,
    )
    # An exported record keeps its lifecycle state when it comes back in.
    if status != draft.status or links["superseded_by"] is not None:
        draft = draft.with_changes(status=status, superseded_by=links["superseded_by"])
    if anchors or guard:
        draft = draft.with_changes(anchors=anchors, guard=guard)
        if not as_stored:  # a memory given back as stored: its rules said below, not refused
            check_guard(
                guard,
                draft.category,
                "'guard'",
                covers=bool(draft.files or anchors),
                scope=store.scope,
                scope_option="'scope': \"global\" (or --global)",
            )
    if as_stored:
        notes += as_stored_notes(draft, store.scope)
    if extra:
        draft = draft.with_changes(extra=extra)
    _check_size(store, draft)
    if written_elsewhere is not None:
        notes.insert(0, written_elsewhere)
    return draft, wanted if isinstance(wanted, str) else None, notes


def _anchors_recorded(
    store: MemoryStore,
    anchors: tuple[SymbolAnchor, ...],
    normalize: Normalize,
    *,
    hash_them: bool,
) -> tuple[tuple[SymbolAnchor, ...], list[str]]:
    """A line's symbol anchors as ``remember`` records them: each path in its stored form,
    and (with ``hash_them``) each anchor the line gives no body hash for given the one its
    definition has in the working tree now, so that a change to its code shows; a note for
    each still without one. The memory is about their files, which the caller adds to the
    files the line names."""
    if not anchors:
        return (), []
    placed = [replace(anchor, path=normalize(anchor.path)) for anchor in anchors]
    refuse_separator_files(store.repo_root, [(a.path, a.name) for a in placed], label="anchor")
    unhashed = [(a.path, a.name) for a in placed if a.body is None]
    if not unhashed or not hash_them:
        return tuple(placed), []
    recorded, notes = record_anchors(store.repo_root, unhashed)
    bodies = {(a.path, a.name): a.body for a in recorded}
    found = tuple(a if a.body else replace(a, body=bodies.get((a.path, a.name))) for a in placed)
    return found, [str(note) for note in notes]


HEAD_BYTES = 1024
"""More than a file's head takes besides its files, author and anchor (fences, keys, id,
category, flags, status, links, date, source), for the bound of :func:`_surely_fits`."""


def _check_size(store: MemoryStore, draft: Memory) -> None:
    """Refuse the line whose memory file would be over the size limit, as ``tether remember``
    refuses it (naming the field that makes it so and what to do), while the line is drafted:
    the store refuses such a file only when it writes it, which would end the whole import."""
    limit = store.folder.max_bytes
    if _surely_fits(draft, limit):  # most lines: rendering each twice costs the import 5%
        return
    sized = draft.with_changes(id=WIDEST_ID)
    check_fits(sized, render_memory(sized), limit)


def _surely_fits(draft: Memory, limit: int) -> bool:
    """Whether ``draft``'s file is under ``limit`` bytes whatever its rendering does: the
    summary and details at 4 bytes a character (UTF-8), a value in the head at 10 (YAML's
    widest escape, ``\\U0010ffff``), and :data:`HEAD_BYTES` for the rest. Hand-written keys
    and symbol anchors are not bounded here: such a draft is rendered to be measured."""
    if draft.extra or draft.anchors:
        return False
    body = len(draft.summary) + len(draft.details or "")
    head = sum(len(path) + 6 for path in draft.files) + len(draft.author or "")
    head += len(draft.anchor or "")
    return 4 * body + 10 * head + HEAD_BYTES <= limit
