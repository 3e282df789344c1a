"""Turning parsed memory files into validated :class:`Memory` records and back."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from recall import frontmatter
from recall.anchors.symbols import anchors_from_field, anchors_to_field
from recall.clock import format_timestamp, parse_timestamp, utc_text
from recall.errors import BadInput, MalformedMemory
from recall.model import CATEGORIES, SOURCES, STATUSES, Memory, is_valid_id

# In the order a memory file is written (front_matter_fields): a rewrite adding one of them puts
# it there among the keys present, so the file reads as if written so from the start.
KNOWN_KEYS = (
    "id",
    "category",
    "files",
    "anchor",
    "anchors",
    "pinned",
    "guard",
    "status",
    "supersedes",
    "superseded_by",
    "created",
    "author",
    "source",
)
# The hash is derived from the text, so a stale copy in a file must not count as a field.
DERIVED_KEYS = ("content_hash",)


def id_for_filename(name: str) -> str:
    """The id of a memory file whose front matter gives none: its stem if valid, else a hash."""
    stem = name[:-3] if name.endswith(".md") else name
    if is_valid_id(stem):
        return stem
    import hashlib  # only for a file not named by a valid id, which is rare

    return hashlib.sha1(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]


def _as_text(value: Any) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.isoformat()
        try:
            return format_timestamp(value)
        except OverflowError:  # its offset moves it past year 1 or 9999 in UTC: as written
            return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _optional_id(fields: dict[str, Any], key: str, parsed: frontmatter.ParsedFile, path: str):
    value = fields.get(key)
    if value in (None, ""):
        return None
    text = str(value)
    if not is_valid_id(text):
        raise MalformedMemory(
            path, parsed.key_lines.get(key, 1), f"{key} {text!r} is not a memory id (8 hex digits)"
        )
    return text


CREATED_EXAMPLE = '"2026-11-30T21:00:00+00:00"'
"""How a ``created:`` line is shown written right: quoted, so that YAML keeps it as text."""


def _created(value: Any, where: str, line: int) -> str:
    """A ``created:`` value read as the time it names, in UTC (:func:`utc_text`), so that every
    comparison of its text (newest first) compares times; :class:`MalformedMemory` naming its
    line when it names none (``2026``, ``yesterday``): such a file is reported and skipped, as
    a file with an unknown category is, rather than listed with a date nothing can order."""
    try:
        if isinstance(value, datetime):  # an unquoted YAML timestamp; naive is UTC
            return utc_text(value)
        if isinstance(value, date):  # an unquoted YAML date: its midnight, UTC
            return utc_text(datetime(value.year, value.month, value.day, tzinfo=UTC))
        if isinstance(value, str):
            return utc_text(parse_timestamp(value, what="created"))
    except (BadInput, OverflowError):
        pass
    written = str(value).lower() if isinstance(value, bool) else _as_text(value)  # as YAML has it
    raise MalformedMemory(
        where,
        line,
        f"created {written!r} is not an ISO-8601 date and time in years 1 to 9999; "
        f"write the time it was written (created: {CREATED_EXAMPLE}), or delete the line to "
        "date it by the commit that added the file",
    )


def extra_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """The front-matter keys of a parsed file that Tether does not know (:attr:`Memory.extra`)."""
    return {k: v for k, v in fields.items() if k not in KNOWN_KEYS and k not in DERIVED_KEYS}


def memory_from_parsed(
    parsed: frontmatter.ParsedFile, path: Path | str, *, fallback_created: str
) -> Memory:
    """Validate a parsed file into a :class:`Memory`, or raise :class:`MalformedMemory`."""
    where = str(path)
    fields = parsed.fields
    line = parsed.key_lines.get

    category = fields.get("category")
    if category is None:
        raise MalformedMemory(where, 1, f"missing 'category' (one of {', '.join(CATEGORIES)})")
    if str(category) not in CATEGORIES:
        raise MalformedMemory(
            where,
            line("category", 1),
            f"unknown category {category!r}; use one of {', '.join(CATEGORIES)}",
        )
    if parsed.summary is None:
        raise MalformedMemory(
            where, parsed.body_line, "missing summary: write a one-line summary after the '---'"
        )

    raw_files = fields.get("files", [])
    if raw_files is None:
        raw_files = []
    if isinstance(raw_files, str):
        raw_files = [raw_files]
    if not isinstance(raw_files, list) or not all(isinstance(f, str) for f in raw_files):
        raise MalformedMemory(where, line("files", 1), "files must be a list of paths")

    raw_id = fields.get("id")
    name = Path(where).name
    if raw_id in (None, ""):
        memory_id = id_for_filename(name)
    else:
        memory_id = str(raw_id)
        if not is_valid_id(memory_id):
            read_as = (
                f" (YAML read it as the number {raw_id}: write an id of digits in quotes, "
                'id: "01234567")'
                if isinstance(raw_id, int | float) and not isinstance(raw_id, bool)
                else ""
            )
            raise MalformedMemory(
                where, line("id", 1), f"id {memory_id!r} is not 8 lowercase hex digits{read_as}"
            )

    status = str(fields.get("status") or "active")
    if status not in STATUSES:
        raise MalformedMemory(
            where, line("status", 1), f"unknown status {status!r}; use one of {', '.join(STATUSES)}"
        )
    source = str(fields.get("source") or "user")
    if source not in SOURCES:
        raise MalformedMemory(
            where, line("source", 1), f"unknown source {source!r}; use one of {', '.join(SOURCES)}"
        )
    pinned = fields.get("pinned", False)
    if pinned is None:
        pinned = False
    if not isinstance(pinned, bool):
        raise MalformedMemory(where, line("pinned", 1), "pinned must be true or false")
    guard = fields.get("guard", False)
    if guard is None:
        guard = False
    if not isinstance(guard, bool):
        raise MalformedMemory(where, line("guard", 1), "guard must be true or false")
    anchor = fields.get("anchor")
    try:
        anchors = anchors_from_field(fields.get("anchors"))
    except BadInput as error:
        raise MalformedMemory(where, line("anchors", 1), str(error)) from None
    created = fields.get("created")
    if created not in (None, ""):
        created = _created(created, where, line("created", 1))
    extra = extra_fields(fields)
    return Memory(
        id=memory_id,
        category=str(category),
        summary=parsed.summary,
        details=parsed.details,
        files=tuple(raw_files),
        anchor=None if anchor in (None, "") else _as_text(anchor),
        anchors=anchors,
        pinned=pinned,
        guard=guard,
        status=status,
        supersedes=_optional_id(fields, "supersedes", parsed, where),
        superseded_by=_optional_id(fields, "superseded_by", parsed, where),
        created=created or fallback_created,
        author="" if fields.get("author") is None else str(fields.get("author")),
        source=source,
        extra=extra,
    )


def front_matter_fields(memory: Memory) -> dict[str, Any]:
    """The ordered front-matter fields Tether writes for a memory (optional ones only if set)."""
    fields: dict[str, Any] = {
        "id": memory.id,
        "category": memory.category,
        "files": list(memory.files),
    }
    if memory.anchor:
        fields["anchor"] = memory.anchor
    if memory.anchors:
        fields["anchors"] = anchors_to_field(memory.anchors)
    fields["pinned"] = memory.pinned
    if memory.guard:
        fields["guard"] = True
    fields["status"] = memory.status
    if memory.supersedes:
        fields["supersedes"] = memory.supersedes
    if memory.superseded_by:
        fields["superseded_by"] = memory.superseded_by
    fields["created"] = memory.created
    fields["author"] = memory.author
    fields["source"] = memory.source
    fields.update(memory.extra)
    return fields


def render_memory(memory: Memory) -> str:
    """The full text of a memory file."""
    if memory.extra or memory.anchors:  # hand-written keys, symbol anchors: the general way
        return frontmatter.render(front_matter_fields(memory), memory.summary, memory.details)
    # The same lines as the general way, for the fields Tether writes (each a string, a bool
    # or a list of strings, under a plain key), without building the field dict: a bulk
    # import renders thousands. tests/test_records.py checks both ways agree.
    scalar = frontmatter.scalar
    lines = [frontmatter.FENCE, f"id: {scalar(memory.id)}", f"category: {scalar(memory.category)}"]
    if memory.files:
        lines.append("files:")
        lines.extend(f"  - {scalar(path)}" for path in memory.files)
    else:
        lines.append("files: []")
    if memory.anchor:
        lines.append(f"anchor: {scalar(memory.anchor)}")
    lines.append(f"pinned: {scalar(memory.pinned)}")
    if memory.guard:
        lines.append("guard: true")
    lines.append(f"status: {scalar(memory.status)}")
    if memory.supersedes:
        lines.append(f"supersedes: {scalar(memory.supersedes)}")
    if memory.superseded_by:
        lines.append(f"superseded_by: {scalar(memory.superseded_by)}")
    lines.append(f"created: {scalar(memory.created)}")
    lines.append(f"author: {scalar(memory.author)}")
    lines.append(f"source: {scalar(memory.source)}")
    lines.append(frontmatter.FENCE)
    return frontmatter.body_text("\n".join(lines), memory.summary, memory.details)
