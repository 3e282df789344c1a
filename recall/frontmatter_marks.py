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

    try:
        lines = frontmatter.front_matter_lines(text, "memory")
        root = yaml.compose("\n".join(lines), Loader=yaml.SafeLoader)
    except (MalformedMemory, yaml.YAMLError):
        return []
    if not isinstance(root, yaml.MappingNode):
        return []
    for key_node, value in root.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            if isinstance(value, yaml.SequenceNode):
                return [_span(item) for item in value.value]
            return [_span(value)] if isinstance(value, yaml.ScalarNode) else []
    return []


def _span(node: Any) -> Span:
    """Where ``node`` is written, counted from the file's first line (the opening fence)."""
    start, end = node.start_mark, node.end_mark
    return Span(start.line + 2, start.column, end.column if end.line == start.line else None)
