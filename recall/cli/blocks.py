"""Block layouts for a narrow terminal, where a table would cut or fold its columns: each item
is a heading line, then its fields below, so no id, number or score is hidden or split.

``tether list`` and ``tether pending`` stack their memories below
:data:`recall.cli.render.NARROW_COLUMNS`; ``tether recall`` does the same, and ``tether stats``
whenever its table does not fit the terminal whole."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from recall.display import CATEGORY_STYLE, visible

if TYPE_CHECKING:
    from rich.console import Console

INDENT = "  "

UNBOUNDED = 1 << 20
"""A width no table reaches: the room a table is measured in to learn its natural width."""


def packed(
    fields: Sequence[str],
    width: int,
    *,
    first: str = INDENT,
    rest: str = INDENT,
    sep: str = "  ",
) -> list[str]:
    """``fields`` joined ``sep`` apart into lines of at most ``width`` characters, the first
    line begun with ``first`` and the others with ``rest`` (both indented by default), a field
    never broken across lines (one wider than the line has a line of its own)."""
    lines: list[str] = []
    line = ""
    prefix = first
    for field in fields:
        joined = f"{line}{sep}{field}" if line else field
        if line and len(prefix + joined) > width:
            lines.append(prefix + line)
            prefix = rest
            joined = field
        line = joined
    if line:
        lines.append(prefix + line)
    return lines


def fits(console: Console, renderable: Any) -> bool:
    """Whether ``renderable`` (a table) is printed on ``console`` with no column shrunk: rich
    narrows columns, cutting or folding what they hold, when their widest does not fit."""
    from rich.measure import Measurement

    unbounded = console.options.update(max_width=UNBOUNDED)  # measured on the console, capped
    return Measurement.get(console, unbounded, renderable).maximum <= console.width


def print_stat_blocks(console: Console, title: str, rows: Sequence[tuple[str, list[str]]]) -> None:
    """The stats table as blocks: each category's name on its line, then its ``name value``
    fields packed below it."""
    from rich.text import Text

    console.print(title, markup=False, highlight=False)
    for category, fields in rows:
        console.print(Text(category, style=CATEGORY_STYLE.get(category, "bold")))
        for line in packed(fields, console.width):
            console.print(line, markup=False, highlight=False, soft_wrap=True)


def print_hit_blocks(console: Console, hits: Sequence[Any]) -> None:
    """Recalled memories as blocks: rank, id, category and score on the heading line, then the
    summary and why it was recalled, each folded to the terminal's width."""
    from rich.padding import Padding
    from rich.text import Text

    for rank, hit in enumerate(hits, start=1):
        memory = hit.memory
        head = Text(f"{rank}  {memory.id}  ")
        head.append(memory.category, style=CATEGORY_STYLE.get(memory.category, ""))
        head.append(f"  score {hit.score:.3f}")
        console.print(head)
        # folded under the heading (soft wrap on, the console's default, would cut them)
        summary = Text(visible(memory.summary), overflow="fold")
        console.print(Padding(summary, (0, 0, 0, 2)), soft_wrap=False)
        why = Text("why: " + visible(hit.receipt), overflow="fold")
        console.print(Padding(why, (0, 0, 0, 2)), soft_wrap=False)
