"""A block list of the front matter (``files``, ``anchors``) rewritten item by item, so what a
person wrote around the items stays: an item unchanged keeps its lines as written; a changed
item keeps the comment at the end of its line, and an entry of the list written as a mapping
keeps its other keys as written, a key added to it going in at its indentation. A removed item's
lines go, with the comments on them."""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

from recall.frontmatter_render import SCALAR_TYPES, render_value, scalar
from recall.yaml_comments import comments, inline_comment, own_end


def _in_place(line: str, node: Any, value: Any) -> str | None:
    """``line`` with the one-line scalar ``node`` on it written as ``value``, or None when the
    node spans lines or is a block scalar, or the value is no scalar."""
    if type(node).__name__ != "ScalarNode" or type(value) not in SCALAR_TYPES:
        return None  # a mapping or list (``{...}`` written on one line too) has no style
    if node.start_mark.line != node.end_mark.line or node.style in ("|", ">"):
        return None
    return line[: node.start_mark.column] + scalar(value) + line[node.end_mark.column :]


def _fresh(value: Any, indent: str, cr: str) -> list[str]:
    """The lines of a list item written anew at ``indent``."""
    lines = render_value("x", [value])[1:]
    cut = min(len(line) - len(line.lstrip(" ")) for line in lines)
    return [indent + line[cut:] + cr for line in lines]


def _entry(
    lines: list[str], start: int, end: int, node: Any, old: dict[str, Any], new: dict[str, Any]
) -> tuple[list[str], list[str]] | None:
    """The lines ``[start, end)`` of a list entry written as the mapping ``node`` (``old`` as
    read) rewritten to ``new`` key by key, and the comments that went with a removed key; None
    when that cannot be done (its first key removed, a changed value not one line)."""
    keys = [key for key, _ in node.value]
    if any(type(key).__name__ != "ScalarNode" for key in keys) or keys[0].start_mark.line != start:
        return None
    indent = " " * keys[0].start_mark.column
    cr = "\r" if lines[start].endswith("\r") else ""
    starts = [key.start_mark.line for key in keys] + [end]
    parts: dict[str, list[str]] = {}
    dropped: list[str] = []
    for number, (key, value) in enumerate(node.value):
        stop = own_end(lines, starts[number], starts[number + 1], indented_comments=True)
        own = lines[starts[number] : stop]
        rest = lines[len(own) + starts[number] : starts[number + 1]]
        if key.value not in new:
            if number == 0:
                return None
            dropped += [text for _, text in comments("\n".join(own))]
            parts[key.value] = rest
            continue
        if repr(new[key.value]) != repr(old.get(key.value)):
            at = value.start_mark.line - starts[number]
            written = _in_place(own[at], value, new[key.value]) if at < len(own) else None
            if written is None:
                return None
            own[at] = written
        parts[key.value] = own + rest
    previous = None
    for key, value in new.items():
        if key not in parts:
            if previous is None:
                return None
            parts[previous] = parts[previous] + [
                indent + line + cr for line in render_value(key, value)
            ]
        previous = key
    return [line for key in parts for line in parts[key]], dropped


def rewrite_items(
    lines: list[str], start: int, tail: int, node: Any, old: Any, new: Any
) -> tuple[list[str], list[str]] | None:
    """The lines after the key line ``start`` up to ``tail`` that write the block list ``node``
    (``old`` as read), rewritten item by item to hold ``new``, and the comments that went with
    the items removed; None when the list is not one to rewrite so (a flow list, an item whose
    value does not start on its ``-`` line, none left)."""
    if type(node).__name__ != "SequenceNode" or node.flow_style or not new:
        return None
    if not isinstance(old, list) or len(old) != len(node.value) or not node.value:
        return None
    if not isinstance(new, list | tuple) or node.value[0].start_mark.line <= start:
        return None
    dashes = [item.start_mark.line for item in node.value]
    if any(
        lines[line][: item.start_mark.column].strip() != "-"
        for line, item in zip(dashes, node.value, strict=True)
    ):
        return None
    dash = lines[dashes[0]]
    indent = dash[: len(dash) - len(dash.lstrip(" "))]
    cr = "\r" if dash.endswith("\r") else ""
    bounds = [*dashes, tail]
    ends = [
        own_end(lines, bounds[n], bounds[n + 1], indented_comments=True) for n in range(len(dashes))
    ]
    out = lines[start + 1 : dashes[0]]
    dropped: list[str] = []
    matcher = SequenceMatcher(None, [repr(v) for v in old], [repr(v) for v in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        pairs = list(zip(range(i1, i2), range(j1, j2), strict=False))
        for i, j in pairs:
            own = lines[dashes[i] : ends[i]]
            if tag != "equal":
                item = (node.value[i], old[i], new[j])
                own = _changed(lines, dashes[i], ends[i], item, indent, dropped)
            out += own + lines[ends[i] : bounds[i + 1]]
        for i in range(i1 + len(pairs), i2):
            dropped += [text for _, text in comments("\n".join(lines[dashes[i] : ends[i]]))]
            out += lines[ends[i] : bounds[i + 1]]
        for j in range(j1 + len(pairs), j2):
            out += _fresh(new[j], indent, cr)
    return out, dropped


def _changed(
    lines: list[str],
    start: int,
    end: int,
    item: tuple[Any, Any, Any],
    indent: str,
    dropped: list[str],
) -> list[str]:
    """The lines ``[start, end)`` of a list item (its node, its value as read, its new value)
    rewritten in place where they can be, else written anew with the comment at the end of its
    first line kept; the comments that went with a key removed from it are added to
    ``dropped``."""
    node, old, new = item
    cr = "\r" if lines[start].endswith("\r") else ""
    written = _in_place(lines[start], node, new) if end == start + 1 else None
    if written is not None:
        return [written]
    block = type(node).__name__ == "MappingNode" and not node.flow_style  # ``{...}``: anew
    if block and isinstance(old, dict) and isinstance(new, dict):
        entry = _entry(lines, start, end, node, old, new)
        if entry is not None:
            dropped += entry[1]
            return entry[0]
    fresh = _fresh(new, indent, cr)
    fresh[0] = fresh[0].removesuffix(cr) + inline_comment(lines[start]) + cr
    return fresh
