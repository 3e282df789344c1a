"""Small text charts for the terminal: rate bars, hub-file bars and activity sparklines.

Pure functions from numbers to lines of text, shared by ``tether stats`` and ``tether browse``;
no colour, so piped output and tests read the same characters a person sees.
"""

from __future__ import annotations

from collections.abc import Sequence

from recall.display import visible
from recall.lifecycle.stats import Activity, CategoryStats

BAR_WIDTH = 12
"""Cells of a bar: fine enough to tell 10% from 25%, narrow enough that a table fits 80 columns."""

SPARK_LEVELS = "▁▂▃▄▅▆▇█"
"""Eight heights of a sparkline cell; a period with no count is drawn as :data:`SPARK_NONE`."""

SPARK_NONE = "·"
"""A period with nothing counted: a dot, so the chart's extent shows even on an empty row."""


def bar(rate: float | None, width: int = BAR_WIDTH) -> str:
    """A text bar for a rate in [0, 1]; dots when there is no rate (nothing surfaced)."""
    if rate is None:
        return "·" * width
    filled = round(max(0.0, min(1.0, rate)) * width)
    return "█" * filled + "░" * (width - filled)


def hub_chart(hubs: Sequence[tuple[str, int]], width: int = BAR_WIDTH) -> list[str]:
    """The files most memories name, one bar each scaled to the largest: where memories pile
    up, and so where a cleanup pays first. Drawn whenever a memory names a file, as ``--json``
    lists them: that no file has two memories yet is worth seeing too. A path is shown as
    :func:`recall.display.visible` writes it, so a line break in a name cannot start a line."""
    if not hubs:
        return []
    most = hubs[0][1]
    lines = ["", "Files most memories name:"]
    for path, count in hubs:
        filled = max(1, round(count / most * width))
        lines.append(f"  {'█' * filled}{' ' * (width - filled)} {count:>4}  {visible(path)}")
    return lines


def sparkline(counts: Sequence[int], top: int) -> str:
    """One cell per count, its height scaled to ``top``; any count above zero shows at least
    the lowest cell, so a single use in a busy chart is still visible."""
    cells = []
    for count in counts:
        if count <= 0 or top <= 0:
            cells.append(SPARK_NONE)
            continue
        level = min(len(SPARK_LEVELS) - 1, round(count / top * (len(SPARK_LEVELS) - 1)))
        cells.append(SPARK_LEVELS[max(0, level)])
    return "".join(cells)


def activity_chart(activity: Activity) -> list[str]:
    """Per category, surfaced and acted-on per week as two sparklines on one scale (the
    category's busiest week), so the gap between them is the follow-through over time.
    Nothing when no use was recorded in the period."""
    rows = [(name, counts) for name, counts in activity.categories.items() if counts.any()]
    if not rows:
        return []
    weeks = len(activity.weeks)
    width = max(len(name) for name, _ in rows)
    lines = [
        "",
        f"Use per week, {activity.weeks[0]} to {activity.end} (oldest left; each row to its "
        "own scale):",
    ]
    for name, counts in rows:
        top = max(max(counts.surfaced), max(counts.acted))
        lines.append(
            f"  {name:<{width}}  surfaced {sparkline(counts.surfaced, top):<{weeks}} "
            f"{sum(counts.surfaced):>5}   acted {sparkline(counts.acted, top):<{weeks}} "
            f"{sum(counts.acted):>5}"
        )
    if activity.since is not None:
        lines.append(f"  (counted per day since {activity.since}; totals above include earlier)")
    return lines


def category_lines(table: Sequence[CategoryStats], total: CategoryStats) -> list[str]:
    """The per-category numbers as plain lines (the browser's overview; ``tether stats`` draws
    the same numbers as a table)."""
    width = max(len(entry.category) for entry in [*table, total])
    head = f"{'category':<{width}}  memories  surfaced  acted  follow-through"
    lines = [head, "─" * len(head)]
    for entry in [*table, total]:
        if entry is total:
            lines.append("─" * len(head))
        rate = entry.follow_through
        percent = "—" if rate is None else f"{rate:.0%}"
        lines.append(
            f"{entry.category:<{width}}  {entry.memories:>8}  {entry.surfaced:>8}  "
            f"{entry.acted:>5}  {bar(rate)} {percent:>4}"
        )
    return lines
