"""Where each entry of a front-matter list is written: the line and columns of every item of a
key's value, as YAML reads them, so a problem with one entry is shown on it whether the list
is a block (one ``- item`` a line, comments between) or a flow (``[a, b]`` on one line)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recall import frontmatter
from recall.errors import MalformedMemory


@dataclass(frozen=True)
class Span:
    """Where an entry is written: its 1-based line, and its first and past-last columns (in
    characters) on that line; ``end`` is None when the entry runs on over more lines."""

    line: int
    start: int
    end: int | None

    @property
    def columns(self) -> tuple[int, int | None]:
        """The first and past-last columns (None: to the end of the line)."""
        return self.start, self.end


def entry_spans(text: str, key: str) -> list[Span]:
    """The span of each item of the list ``key`` holds in the front matter of ``text`` (one
    for a single string); empty when the key holds neither or the front matter does not read
    as YAML (its own diagnostic says so)."""
    import yaml  # on first use, as recall.frontmatter does

    value, joined = _value_node(text, key)
    if isinstance(value, yaml.SequenceNode):
        return [_span(item, joined) for item in value.value]
    return [_span(value, joined)] if isinstance(value, yaml.ScalarNode) else []


def plain_entry_values(text: str, key: str) -> list[dict[str, tuple[int, str]]]:
    """For each item of the list ``key`` holds in the front matter of ``text`` (a mapping given
    alone is one), the keys of it whose value is written unquoted, each with the 1-based line
    its value is on and its text as written (``1.10``, which YAML reads as a number); an item
    that is no mapping has none. Empty when the key holds no list or mapping, or the front
    matter does not read as YAML (its own diagnostic says so)."""
    import yaml

    value, joined = _value_node(text, key)
    if value is None:
        return []
    found: list[dict[str, tuple[int, str]]] = []
    for item in value.value if isinstance(value, yaml.SequenceNode) else [value]:
        pairs = item.value if isinstance(item, yaml.MappingNode) else []
        found.append(
            {
                name.value: (_span(node, joined).line, node.value)
                for name, node in pairs
                if isinstance(name, yaml.ScalarNode)
                and isinstance(node, yaml.ScalarNode)
                and node.style is None  # plain: neither quoted nor a block scalar
            }
        )
    return found


def _value_node(text: str, key: str) -> tuple[Any, str]:
    """The YAML node of the value of the top-level ``key`` in the front matter of ``text``, or
    None (no such key, or the front matter does not read as YAML), with the text YAML read."""
    import yaml

    try:
        lines = frontmatter.front_matter_lines(text, "memory")
        joined = "\n".join(lines)
        root = yaml.compose(joined, Loader=yaml.SafeLoader)
    except (MalformedMemory, yaml.YAMLError):
        return None, ""
    if not isinstance(root, yaml.MappingNode):
        return None, joined
    for key_node, value in root.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value, joined
    return None, joined


def _span(node: Any, parsed: str) -> Span:
    """Where ``node`` is written, counted from the file's first line (the opening fence).

    From the marks' character offsets into ``parsed`` (the text YAML read), not their lines
    and columns: YAML also breaks lines at U+2028, U+2029 and NEL, which the file's lines,
    split at line feeds and lone carriage returns only, do not."""
    line, start = _line_column(parsed, node.start_mark.index)
    end_line, end = _line_column(parsed, node.end_mark.index)
    return Span(line + 2, start, end if end_line == line else None)


def _line_column(text: str, index: int) -> tuple[int, int]:
    """The 0-based line (lines split at line feeds) and column of offset ``index`` in ``text``."""
    return text.count("\n", 0, index), index - (text.rfind("\n", 0, index) + 1)
