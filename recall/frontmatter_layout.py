"""Where each top-level key of a memory's front matter is written, as YAML reads it: the lines a
rewrite of some keys (:func:`recall.frontmatter.update`) replaces. Keys are found by YAML's own
reading, so a quoted key (``"pinned": false``) is found as a plain one is.

A front matter written as one flow mapping (``{category: gotcha, files: [a.py]}``) gives no key
a line of its own, and no edit of one key in place is possible: it is laid out first as one
``key: value`` line per key, each key and each value written exactly as it was (the braces,
commas and line breaks between them are all that goes), which YAML reads back the same."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from recall.yaml_comments import own_end

FLOW_PUNCTUATION = frozenset("{},:? \t\r\n")
"""All that may stand between the keys and values of a flow mapping laid out as lines: anything
else there (a comment, a tag on the mapping) is the person's and would be lost."""


@dataclass(frozen=True)
class Layout:
    """The front-matter lines a rewrite edits, and where each top-level key is in them."""

    lines: list[str]
    spans: dict[str, tuple[int, int]]
    """Each key (as YAML reads it) and the [start, end) indices of its lines in ``lines``."""
    written: dict[str, str]
    """Each key as the file writes it (quotes kept), so a rewritten value keeps its key."""
    kept_blanks: dict[str, int] = field(default_factory=dict)
    """The end of the lines of each key whose value is a block scalar keeping the blank lines
    after its text (``|+``): they are its text, not space before the next key."""

    values: dict[str, Any] = field(default_factory=dict)
    """The YAML node of each key's value, in a block mapping (none in a flow one laid out)."""

    def own_end(self, key: str) -> int:
        """The end of the lines that write ``key`` and its value (see
        :func:`recall.yaml_comments.own_end`: an indented ``#`` line may be a block scalar's
        text)."""
        start, end = self.spans[key]
        return self.kept_blanks.get(key) or own_end(self.lines, start, end, indented_comments=False)


def layout(fm_lines: list[str], cr: str) -> Layout | None:
    """The layout of the front matter ``fm_lines`` (the lines between the fences) for a rewrite;
    a flow mapping laid out as block lines, each ending in ``cr`` ("\\r" in a CRLF file). None
    when it is a flow mapping holding anything besides its keys and values (a comment): laid out,
    that would be lost. A front matter YAML does not read as a mapping has no keys here."""
    import yaml  # on first use, as recall.frontmatter does

    joined = "".join(line + "\n" for line in fm_lines)  # as the loader reads it
    try:
        root = yaml.compose(joined, Loader=yaml.SafeLoader)  # marks in characters, not bytes
    except yaml.YAMLError:
        return Layout(list(fm_lines), {}, {})
    if not isinstance(root, yaml.MappingNode):
        return Layout(list(fm_lines), {}, {})
    if root.flow_style:
        return _laid_out(joined, root.value, cr)
    # a mark's line counted at line feeds: YAML also breaks lines at U+2028 and a lone CR
    starts = [joined.count("\n", 0, key.start_mark.index) for key, _ in root.value]
    spans: dict[str, tuple[int, int]] = {}
    written: dict[str, str] = {}
    kept_blanks: dict[str, int] = {}
    values: dict[str, Any] = {}
    for number, (key, value) in enumerate(root.value):
        if isinstance(key, yaml.ScalarNode) and key.value not in spans:
            end = starts[number + 1] if number + 1 < len(starts) else len(fm_lines)
            spans[key.value] = (starts[number], end)
            written[key.value] = joined[key.start_mark.index : key.end_mark.index]
            values[key.value] = value
            block = isinstance(value, yaml.ScalarNode) and value.style in ("|", ">")
            if block and value.value.endswith("\n\n"):  # only kept blank lines end it so
                kept_blanks[key.value] = joined.count("\n", 0, value.end_mark.index)
    return Layout(list(fm_lines), spans, written, kept_blanks, values)


def _laid_out(joined: str, pairs: list[tuple[Any, Any]], cr: str) -> Layout | None:
    """The keys and values of a flow mapping as one ``key: value`` line each (a value written
    over several lines goes on over lines indented under its key), or None when anything but
    punctuation and blanks stands between them."""
    import yaml

    lines: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    written: dict[str, str] = {}
    between: list[str] = []
    cursor = 0
    for key, value in pairs:
        key_text = joined[key.start_mark.index : key.end_mark.index]
        value_text = joined[value.start_mark.index : value.end_mark.index]
        between.append(joined[cursor : key.start_mark.index])
        between.append(joined[key.end_mark.index : value.start_mark.index])
        cursor = max(cursor, key.end_mark.index, value.end_mark.index)
        first, *rest = value_text.split("\n")
        start = len(lines)
        lines.append(f"{key_text}: {first}".rstrip(" \r") + cr)
        lines.extend("  " + line.rstrip("\r") + cr for line in rest)
        if isinstance(key, yaml.ScalarNode) and key.value not in spans:
            spans[key.value] = (start, len(lines))
            written[key.value] = key_text
    between.append(joined[cursor:])
    if any(set(text) - FLOW_PUNCTUATION for text in between):
        return None
    return Layout(lines, spans, written)


def insertion_points(
    laid: Layout, added: Sequence[str], order: Sequence[str], kept: Collection[str]
) -> list[tuple[int, str]]:
    """Where each key of ``added`` (keys the front matter does not give) is written: the index
    in ``laid.lines`` to insert its lines before, with the key, in the order to write them.

    ``order`` is the order in which a memory file is written, any key not in it coming after
    them all: a key of ``order`` goes right after the last key present (of ``kept``, the keys
    that stay) that ``order`` puts before it, else right before the first present that comes
    after it, so a file written in that order gets it where the writer would put it, and no key
    present moves. Any other key goes at the end, in the order of ``added``."""
    rank = {key: number for number, key in enumerate(order)}
    last = len(order)
    present = [(span, rank.get(key, last), key) for key, span in laid.spans.items() if key in kept]
    points: list[tuple[int, int, str]] = []
    for number, key in enumerate(added):
        at = len(laid.lines)
        if key in rank:
            earlier = [(span, name) for span, place, name in present if place < rank[key]]
            later = [span for span, place, _ in present if place > rank[key]]
            if earlier:
                at = laid.own_end(max(earlier)[1])
            elif later:
                at = min(later)[0]
        points.append((at, rank.get(key, last + number), key))
    return [(at, key) for at, _, key in sorted(points)]


def line_before_edits(index: int, edits: list[tuple[int, int, list[str]]]) -> int:
    """The index in the lines before ``edits`` (each ``[start, end)`` of them and the lines put
    there) of line ``index`` after them: the start of an edit for a line it wrote."""
    shift = 0
    for start, end, lines in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        if index < start + shift:
            break
        if index < start + shift + len(lines):
            return start
        shift += len(lines) - (end - start)
    return index - shift


def value_changed(laid: Layout, index: int, changes: dict[str, Any]) -> str:
    """Why the keys of ``changes`` cannot be rewritten: the key written at line ``index`` of
    ``laid.lines`` would read otherwise after it (or, when it is the very key changed, its line
    would not hold the new value), and what to do."""
    keys = ", ".join(f"'{key}'" for key in changes)
    here = next((key for key, (start, end) in laid.spans.items() if start <= index < end), None)
    if here is None or here in changes:
        return cannot_rewrite(changes, flow=False)
    return (
        f"cannot rewrite {keys} without changing what '{here}' on this line reads; write its "
        "value out in full as a `key: value` line of its own (not through a YAML anchor `&` "
        "or alias `*` that ties it to another key) and run the command again"
    )


def comment_lost(laid: Layout, index: int, comment: str, changes: dict[str, Any]) -> str:
    """Why the keys of ``changes`` cannot be rewritten: the comment ``comment`` on line ``index``
    of ``laid.lines`` would be lost, and what to do."""
    keys = ", ".join(f"'{key}'" for key in changes)
    here = next((key for key, (start, end) in laid.spans.items() if start <= index < end), None)
    above = f" above '{here}'" if here is not None else ""
    return (
        f"cannot rewrite {keys} without losing the comment on this line ({comment}); move it "
        f"to a line of its own{above}, or remove it, and run the command again"
    )


def cannot_rewrite(changes: dict[str, Any], *, flow: bool) -> str:
    """Why the keys of ``changes`` cannot be rewritten in a front matter, and what to do:
    ``flow`` when it is a flow mapping that :func:`layout` cannot lay out as lines."""
    keys = ", ".join(f"'{key}'" for key in changes)
    why = (
        "it is one `{...}` mapping holding a comment or a tag, which lines would lose"
        if flow
        else "the way it is written would not read back the same"
    )
    return (
        f"cannot rewrite {keys} here without changing the rest of the front matter ({why}); "
        "write each key as a `key: value` line of its own (a comment on a line of its own) "
        "and run the command again"
    )
