"""The size limit of a memory file: which field of a memory makes its file too large."""

from __future__ import annotations

from recall import frontmatter
from recall.anchors.symbols import anchors_to_field
from recall.errors import BadInput
from recall.model import Memory

_ADVICE = {
    "summary": "give the knowledge as one short line in summary, the why and the fix in "
    "details, and leave the bulk (a log, a listing) in a file the memory names",
    "details": "keep details to the why and the fix, split several pieces of knowledge "
    "into several memories, and leave the bulk (a log, a listing) in a file the memory names",
    "files": "name the few files the memory is about, or none for the whole repository",
    "anchors": "anchor the few symbols the memory is about",
    "anchor": "give the symbol or line range the memory is about",
    "author": "give a shorter author name",
}


def _bytes(lines: list[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


def field_sizes(memory: Memory) -> dict[str, int]:
    """The bytes each field a person gave takes in ``memory``'s file: the text, the head's
    lists and names, and each hand-written front-matter key (named ``front-matter key 'k'``)."""
    sizes = {
        "summary": len(memory.summary.encode("utf-8")),
        "details": len((memory.details or "").encode("utf-8")),
        "files": sum(len(path.encode("utf-8")) for path in memory.files),
        "anchors": _bytes(frontmatter.render_value("anchors", anchors_to_field(memory.anchors)))
        if memory.anchors
        else 0,
        "anchor": len((memory.anchor or "").encode("utf-8")),
        "author": len(memory.author.encode("utf-8")),
    }
    for key, value in memory.extra.items():
        sizes[f"front-matter key {key!r}"] = _bytes(frontmatter.render_value(key, value))
    return sizes


def over_limit(memory: Memory, text: str, limit: int) -> tuple[str, str] | None:
    """What makes a memory whose file ``text`` is over ``limit`` bytes too large (the largest
    field, with its size, the file's and the limit) and what to do about that field; None when
    the file fits."""
    size = len(text.encode("utf-8"))
    if size <= limit:
        return None
    sizes = field_sizes(memory)
    field = max(sizes, key=lambda name: sizes[name])
    advice = _ADVICE.get(field, f"shorten the value of {field}, or leave that key out")
    return (
        f"{field} is {sizes[field]:,} bytes and would make the memory file {size:,} bytes, "
        f"over the limit of {limit:,} bytes for a memory file",
        advice,
    )


def check_fits(memory: Memory, text: str, limit: int) -> None:
    """Refuse a memory whose file ``text`` would be over ``limit`` bytes, naming the field that
    makes it so (see :func:`field_sizes`) with its size and the limit, and what to do: a file
    that large would be skipped by every read (see :data:`recall.memfiles.MAX_FILE_BYTES`)."""
    problem = over_limit(memory, text, limit)
    if problem is None:
        return
    from recall.memfiles import MAX_FILE_BYTES_ENV

    what, advice = problem
    raise BadInput(
        f"{what}; nothing written: {advice} (or set {MAX_FILE_BYTES_ENV} to a larger number "
        "of bytes)"
    )
