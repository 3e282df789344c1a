"""The comment a person wrote at the end of a front-matter line (``pinned: false  # why``),
found by YAML's own scanner so a ``#`` inside a quoted value is never taken for one; a key
rewritten in place keeps it."""

from __future__ import annotations


def inline_comment(line: str) -> str:
    """The trailing comment of one front-matter line with the blanks before it (``"  # why"``),
    or "" when it has none or the line does not scan as YAML on its own."""
    import yaml  # on first use: reading a store parses no YAML (see recall.frontmatter)

    written = line.rstrip("\r")
    try:
        tokens = list(yaml.scan(written, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return ""
    bounds = (yaml.StreamStartToken, yaml.StreamEndToken, yaml.BlockEndToken)  # none written
    ends = [t.end_mark.column for t in tokens if not isinstance(t, bounds)]
    rest = written[max(ends, default=0) :]
    if rest[:1] in (" ", "\t") and rest.lstrip().startswith("#"):
        return rest
    return ""


def comments(text: str) -> list[tuple[int, str]]:
    """Every comment of the YAML ``text``, as (index of its line, its text from the ``#``);
    none when the text does not scan."""
    import re

    import yaml

    try:
        tokens = list(yaml.scan(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return []
    spans = [(t.start_mark.index, t.end_mark.index) for t in tokens]
    found: list[tuple[int, str]] = []
    after = 0  # the end of the comment found last: a `#` in it starts none
    for mark in re.finditer("#", text):
        at = mark.start()
        if at < after or (at > 0 and text[at - 1] not in " \t\r\n"):
            continue
        if any(start <= at < end for start, end in spans):  # inside a scalar, not a comment
            continue
        after = text.find("\n", at)
        after = len(text) if after < 0 else after
        found.append((text.count("\n", 0, at), text[at:after].rstrip("\r")))
    return found


def lost_comment(before: str, after: str, dropped: list[str]) -> tuple[int, str] | None:
    """The first comment of ``before`` (its line index and text) that ``after`` does not hold,
    ``dropped`` (comments let go, as those of a list item removed) aside; None when none is."""
    from collections import Counter

    left = Counter(text for _, text in comments(after)) + Counter(dropped)
    for index, text in comments(before):
        if left[text] <= 0:
            return index, text
        left[text] -= 1
    return None


def own_end(lines: list[str], start: int, end: int, *, indented_comments: bool) -> int:
    """The end of the lines of what starts at ``start`` (a key and its value, a list item) in
    its span ``[start, end)`` of ``lines``: the blank and comment lines closing the span are
    left out (the first line always stays), since they lead into what follows rather than
    belong to what is above them. ``indented_comments`` says whether a ``#`` line indented is
    such a comment: between list items it is; after a key's value it may be a block scalar's
    text, so there only a ``#`` at the start of the line is."""

    def closing(line: str) -> bool:
        text = line.lstrip() if indented_comments else line
        return not line.strip() or text.startswith("#")

    while end > start + 1 and closing(lines[end - 1]):
        end -= 1
    return end
