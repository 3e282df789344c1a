"""Reading and writing the text form of a memory: YAML front matter, then the body, whose first
non-blank line is the one-line summary and the rest the details. Writing never alters memory
text; an update rewrites only the front-matter keys that change (hand-written ones survive)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall.conflict_marks import refuse_conflict
from recall.errors import MalformedMemory
from recall.frontmatter_render import render_value, scalar
from recall.line_ends import lone_cr_as_lf
from recall.yaml_comments import comments, inline_comment, lost_comment
from recall.yaml_loader import KeyTwice, NoSuchDate, unique_keys_loader
from recall.yaml_shared import expanded_key, expanded_message, shared_key, shared_message

if TYPE_CHECKING:
    import yaml

FENCE = "---"
_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:")
_FIRST_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class ParsedFile:
    """A memory file split into its parts, before any field validation."""

    fields: dict[str, Any]
    summary: str | None
    details: str
    key_lines: dict[str, int]
    body_line: int
    """1-based line where the body starts (for error messages)."""


def render(fields: dict[str, Any], summary: str, details: str) -> str:
    """Render a whole memory file from ordered front-matter fields, summary and details."""
    lines = [FENCE]
    for key, value in fields.items():
        lines.extend(render_value(key, value))
    lines.append(FENCE)
    return body_text("\n".join(lines), summary, details)


def body_text(front: str, summary: str, details: str) -> str:
    """A memory file's text from its front matter (both fences included), summary and details."""
    text = front + "\n" + summary + "\n"
    if details:
        text += "\n" + details + "\n"
    return text


def _split(text: str, path: Path | str) -> tuple[list[str], int, str]:
    """Return (front-matter lines, index of closing fence line, body text as written).

    Lines end where an editor ends them (:mod:`recall.line_ends`): at ``\n``, and at a lone
    ``\r`` too, so a file written with old Mac line ends throughout has its front matter read
    as one written with ``\n``; a line of a CRLF file keeps its ``\r``, as YAML reads it."""
    text = text.removeprefix("\ufeff")
    ends = lone_cr_as_lf(text)  # of the same length: its "\n" are where the lines end
    refuse_conflict(ends, path)  # first: markers may make the front matter read, or not
    lines = ends.split("\n")
    if not lines or lines[0].rstrip("\r \t") != FENCE:
        raise MalformedMemory(path, 1, "no front matter: the file must start with a '---' line")
    start = len(lines[0]) + 1  # where the line after the one looked at starts
    for index in range(1, len(lines)):
        start += len(lines[index]) + 1
        if lines[index].rstrip("\r \t") in (FENCE, "..."):
            return lines[1:index], index, text[start:]
    raise MalformedMemory(path, 1, "front matter is not closed: add a '---' line after it")


def line_break(text: str) -> str:
    """How the lines of the memory file ``text`` end, by its opening fence's line: ``"\r"``
    (old Mac line ends), ``"\r\n"`` (a Windows checkout) or ``"\n"``."""
    found = _FIRST_BREAK.search(text)
    return found.group() if found is not None else "\n"


def front_matter_lines(text: str, path: Path | str) -> list[str]:
    """The lines between the fences of a memory file (the first is the file's line 2);
    :class:`MalformedMemory` when it has no closed front matter."""
    return _split(text, path)[0]


def yaml_text(fm_lines: list[str]) -> str:
    """The front matter as YAML reads it in a file of its own: its lines, each ending in a line
    break (a block scalar written last keeps its final one, as ``|`` says)."""
    return "".join(line + "\n" for line in fm_lines)


def _yaml_error_line(error: yaml.YAMLError) -> int:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    return (mark.line + 2) if mark is not None else 1


def _split_body(body: str, *, breaks: str) -> tuple[str | None, str, int]:
    """Return (summary, details, offset of summary line within the body).

    A lone CR ends a line as ``\n`` does (:mod:`recall.line_ends`), so a summary line ended by
    one (old Mac line ends, or a tool that wrote one) is the summary alone and what follows it
    the details. In a file whose lines end in CRLF or in a lone CR (``breaks``, its opening
    fence's line end: :func:`line_break`) each line is read as one ending in LF, so no carriage
    return is left at the end of a summary or of a line of the details; the file keeps its
    text. In any other file a carriage return inside the details is the writer's own and is
    kept."""
    if breaks == "\r":
        body = lone_cr_as_lf(body)
    if breaks != "\n":
        body = body.replace("\r\n", "\n")
    ends = lone_cr_as_lf(body)  # of the same length: its "\n" are where the body's lines end
    lines = ends.split("\n")
    index = start = 0
    while index < len(lines) and not lines[index].strip():
        start += len(lines[index]) + 1
        index += 1
    if index == len(lines):
        return None, "", 0  # point at the line right after the closing fence
    stop = start + len(lines[index])
    summary = body[start:stop].rstrip("\r")  # a last line with no LF after its CR
    rest, rest_ends = body[stop + 1 :], ends[stop + 1 :]
    if rest_ends.startswith("\n"):  # the blank line between the summary and the details
        rest = rest[1:]
    if rest.endswith(("\n", "\r")):  # the last line's end (a CR of a CRLF end stays, as before)
        rest = rest[:-1]
    if not rest.strip():
        rest = ""
    return summary, rest, index


def parse(text: str, path: Path | str) -> ParsedFile:
    """Split a memory file into front-matter fields, summary and details.

    Raises :class:`MalformedMemory` with the path and line of the first problem.
    """
    fm_lines, close_index, body = _split(text, path)
    import yaml  # on first use, see unique_keys_loader

    try:
        loaded = yaml.load(yaml_text(fm_lines), Loader=unique_keys_loader())
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or str(error).split("\n")[0]
        raise MalformedMemory(path, _yaml_error_line(error), f"bad YAML: {problem}") from None
    except NoSuchDate as date:
        raise MalformedMemory(path, date.line + 2, date.message()) from None
    except KeyTwice as twice:
        raise MalformedMemory(
            path,
            twice.line + 2,
            f"key {twice.key!r} is given twice (first on line {twice.first + 2}), and which one "
            "is meant cannot be told; delete the one you do not mean",
        ) from None
    loaded = {} if loaded is None else loaded
    if not isinstance(loaded, dict):
        raise MalformedMemory(path, 2, "front matter must be a mapping of 'key: value' lines")
    key_lines: dict[str, int] = {}
    for offset, line in enumerate(fm_lines):
        match = _KEY_LINE.match(line)
        if match and match.group(1) not in key_lines:
            key_lines[match.group(1)] = offset + 2
    summary, details, body_offset = _split_body(body, breaks=line_break(text))
    fields = {str(key): value for key, value in loaded.items()}
    if (shared := shared_key(fields)) is not None:
        raise MalformedMemory(path, key_lines.get(shared, 2), shared_message(shared))
    written = sum(map(len, fm_lines)) + len(fm_lines)
    if (grown := expanded_key(fields, written)) is not None:
        key, size = grown
        raise MalformedMemory(path, key_lines.get(key, 2), expanded_message(key, size, written))
    return ParsedFile(fields, summary, details, key_lines, close_index + 2 + body_offset)


REMOVE = object()
"""Sentinel value for :func:`update`: delete the key from the front matter."""


def update(
    text: str, path: Path | str, changes: dict[str, Any], *, key_order: Sequence[str] = ()
) -> str:
    """Rewrite only the given front-matter keys of a memory file; the body stays byte-identical.

    A key absent from the file is added where ``key_order`` (the order a memory file is written
    in) puts it among the keys present, and any other at the end
    (:func:`recall.frontmatter_layout.insertion_points`); a value of :data:`REMOVE` deletes the
    key. In a file whose opening fence ends in CRLF (a Windows checkout) the lines written end
    in CRLF too, so the file keeps one kind of line ending. A front matter written as one
    ``{...}`` mapping is laid out first as one line per key (:mod:`recall.frontmatter_layout`).
    Every other value is checked to read back the same: :class:`MalformedMemory` when one would
    not.
    """
    fm_lines, close_index, _ = _split(text, path)
    before = parse(text, path).fields  # a file that does not load is said as it is written
    from recall.frontmatter_items import rewrite_items
    from recall.frontmatter_layout import (
        cannot_rewrite,
        comment_lost,
        insertion_points,
        layout,
        line_before_edits,
        value_changed,
    )

    lead = "\ufeff" if text.startswith("\ufeff") else ""
    written = text[len(lead) :]
    all_lines = lone_cr_as_lf(written).split("\n")  # the lines _split read
    breaks = line_break(written)
    cr = "\r" if breaks == "\r\n" else ""  # before the "\n" of each line written
    laid = layout(fm_lines, cr)
    if laid is None:
        raise MalformedMemory(path, 2, cannot_rewrite(changes, flow=True))
    new_fm, blocks = list(laid.lines), laid.spans
    # each line's end as written ("\n", or a lone "\r"), so a line kept keeps it; a line
    # written ends as the opening fence's does, so a file of old Mac line ends keeps them
    offsets = list(accumulate((len(line) + 1 for line in all_lines[:close_index]), initial=0))
    ends = [written[at - 1] for at in offsets[1:]]  # of the lines before the closing fence
    fresh = "\r" if breaks == "\r" else "\n"
    line_ends = ends[1:close_index] if laid.lines == fm_lines else [fresh] * len(new_fm)
    edits: list[tuple[int, int, list[str]]] = []  # [start, end) of new_fm and its new lines
    dropped: list[str] = []  # the comments of list items removed, gone with them
    for key, (start, _) in blocks.items():
        if key not in changes:
            continue
        value = changes[key]
        replacement = [] if value is REMOVE else [line + cr for line in render_value(key, value)]
        rendered_key = scalar(str(key)) + ":"
        if replacement and replacement[0].startswith(rendered_key):  # the key as it was written
            replacement[0] = laid.written[key] + replacement[0][len(rendered_key) - 1 :]
        comment = inline_comment(new_fm[start])  # the person's note on the line stays on it
        if comment:
            first = (
                comment.lstrip() if value is REMOVE else replacement[0].removesuffix(cr) + comment
            )
            replacement[:1] = [first + cr]
        tail = laid.own_end(key)  # the comment and blank lines after it stay
        listed = rewrite_items(new_fm, start, tail, laid.values.get(key), before.get(key), value)
        if listed is not None:  # a block list: item by item, keeping what is around them
            edits.append((start + 1, tail, listed[0]))
            dropped += listed[1]
            continue
        # a note at the margin inside the old value is the person's: kept, after the new one
        notes = [line for line in new_fm[start + 1 : tail] if line.startswith("#")]
        if _items_all_gone(laid.values.get(key), value):  # as each item removed one by one:
            span = new_fm[start + 1 : tail]  # a note on a line of its own stays, and an item's
            notes = [line for line in span if line.lstrip().startswith("#")]  # own goes with it
            items = "\n".join(line for line in span if not line.lstrip().startswith("#"))
            dropped += [text for _, text in comments(items)]
        edits.append((start, tail, replacement + notes))
    added = [key for key, value in changes.items() if key not in blocks and value is not REMOVE]
    kept = [key for key in blocks if changes.get(key) is not REMOVE]
    inserted: dict[int, list[str]] = {}
    for at, key in insertion_points(laid, added, key_order, kept):
        inserted.setdefault(at, []).extend(line + cr for line in render_value(key, changes[key]))
    edits.extend((at, at, lines) for at, lines in inserted.items())
    # From the bottom up, so earlier indices hold; a key's lines replaced before lines are
    # inserted where it starts
    for start, end, lines in sorted(edits, key=lambda edit: (-edit[0], -edit[1])):
        new_fm[start:end] = lines
        line_ends[start:end] = [fresh] * len(lines)
    lost = lost_comment("\n".join(laid.lines), "\n".join(new_fm), dropped)
    if lost is not None:
        raise MalformedMemory(path, lost[0] + 2, comment_lost(laid, *lost, changes))
    front = "".join(line + end for line, end in zip(new_fm, line_ends, strict=True))
    result = lead + all_lines[0] + ends[0] + front + written[offsets[close_index] :]
    expected = {
        k: list(v) if isinstance(v, tuple) else v
        for k, v in {**before, **changes}.items()
        if v is not REMOVE
    }
    try:
        got = parse(result, path).fields
    except MalformedMemory as broken:  # where it breaks, as the file is written now
        at = line_before_edits(broken.line - 2, edits)
        raise MalformedMemory(path, at + 2, value_changed(laid, at, changes)) from None
    # repr as well: a NaN is not equal to itself
    changed = [
        key
        for key, value in expected.items()
        if key not in got or (got[key] != value and repr(got[key]) != repr(value))
    ]
    if changed or got.keys() != expected.keys():
        at = laid.spans.get(changed[0], (0, 0))[0] if changed else 0
        raise MalformedMemory(path, at + 2, value_changed(laid, at, changes))
    return result


def file_key_line(path: Path, key: str) -> int:
    """The line of the memory file ``path`` that gives ``key`` (1 when it cannot be found or
    read): where a problem about that key is said."""
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        return 1
    return line_of(text, key)


def line_of(text: str, key: str) -> int:
    """The 1-based line of the memory file ``text`` that ``key`` is about: for ``"summary"``
    the summary's, for ``"details"`` the first of the details, else the line giving the
    front-matter key (1 when it cannot be found). Lines are counted as an editor counts them:
    a lone CR ends one too (:mod:`recall.line_ends`)."""
    text = lone_cr_as_lf(text.removeprefix("\ufeff"))
    lines = text.split("\n")
    if key not in ("summary", "details"):
        for number, line in enumerate(lines, start=1):
            match = _KEY_LINE.match(line)
            if match and match.group(1) == key:
                return number
        return 1
    try:
        _, close_index, body = _split(text, "")
    except MalformedMemory:
        return 1
    body_line = close_index + 2 + _split_body(body, breaks="\n")[2]
    if key == "summary":
        return body_line
    after = body_line  # the index of the line after the summary
    while after < len(lines) and not lines[after].strip():
        after += 1
    return after + 1 if after < len(lines) else body_line


def _items_all_gone(node: Any, value: Any) -> bool:
    """Whether a rewrite takes every item of a block list away (the key removed, or the list
    emptied), so the comments at the end of their lines go with them."""
    emptied = value is REMOVE or (isinstance(value, list | tuple) and not value)
    return emptied and type(node).__name__ == "SequenceNode" and not node.flow_style
