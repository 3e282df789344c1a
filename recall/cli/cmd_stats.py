"""``tether stats``: per category, how many memories are kept, shown, acted on and retired.

The ``archived`` column counts what is archived for the user reading it: archived by a person,
or by their own disuse (a note under the table says how many of those; ``--json`` has them as
``archived_by_disuse``), the same memories ``tether list --status archived`` lists.
"""

from __future__ import annotations

import argparse

from recall.cli.context import CommandContext
from recall.cli.render import scope_option
from recall.stats import CategoryStats, category_stats, hub_files, merge, merge_hubs, totals

# Cells of the follow-through bar: fine enough to tell 10% from 25%, narrow enough that the
# whole table fits 80 columns.
BAR_WIDTH = 12


def register(sub: argparse._SubParsersAction) -> None:
    """Add stats to the CLI."""
    p = sub.add_parser("stats", help="per category: memories, surfaced, acted, follow-through")
    scope_option(p, default="project")
    p.set_defaults(func=run_stats)


def bar(rate: float | None, width: int = BAR_WIDTH) -> str:
    """A text bar for a rate in [0, 1]; dots when there is no rate (nothing surfaced)."""
    if rate is None:
        return "·" * width
    filled = round(max(0.0, min(1.0, rate)) * width)
    return "█" * filled + "░" * (width - filled)


def hub_chart(hubs: list[tuple[str, int]], width: int = BAR_WIDTH) -> list[str]:
    """The files most memories name, one bar each scaled to the largest: where memories pile
    up, and so where a cleanup pays first. Nothing when no file has two."""
    if not hubs or hubs[0][1] < 2:
        return []
    most = hubs[0][1]
    lines = ["", "Files most memories name:"]
    for path, count in hubs:
        filled = max(1, round(count / most * width))
        lines.append(f"  {'█' * filled}{' ' * (width - filled)} {count:>4}  {path}")
    return lines


def disuse_note(count: int) -> str:
    """The line under the table saying how many of the archived were archived by disuse."""
    were = "was" if count == 1 else "were"
    return (
        f"{count} of the archived {were} archived by your disuse, for you alone (the files "
        "say active): `tether list --status archived` lists them, `tether restore ID` brings "
        "one back"
    )


def _percent(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.0%}"


def run_stats(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Print the per-category table (or JSON)."""
    stores = ctx.stores(args.scope)
    table = merge([category_stats(store.conn) for store in stores])
    total = totals(table)
    hubs = merge_hubs([hub_files(store.conn) for store in stores])
    data = {
        "scope": args.scope,
        "categories": [entry.to_dict() for entry in table],
        "total": total.to_dict(),
        "hub_files": [{"path": path, "memories": count} for path, count in hubs],
    }

    def render(console) -> None:
        from rich import box
        from rich.table import Table

        view = Table(
            title=f"Memory use ({args.scope})",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            padding=(0, 1, 0, 0),
        )
        view.add_column("category", no_wrap=True)
        for name in ("memories", "surfaced", "acted"):
            view.add_column(name, justify="right", no_wrap=True)
        view.add_column("follow-through", no_wrap=True)
        for name in ("archived", "superseded"):
            view.add_column(name, justify="right", no_wrap=True)

        def row(entry: CategoryStats, **style: str) -> None:
            rate = entry.follow_through
            view.add_row(
                entry.category,
                str(entry.memories),
                str(entry.surfaced),
                str(entry.acted),
                f"{bar(rate)} {_percent(rate):>4}",
                str(entry.archived),
                str(entry.superseded),
                **style,
            )

        for entry in table:
            row(entry)
        view.add_section()
        row(total, style="bold")
        console.print(view)
        if total.archived_by_disuse:
            console.print(disuse_note(total.archived_by_disuse), markup=False, highlight=False)
        if total.pending:
            console.print(
                f"{total.pending} auto-distilled pending review (`tether pending`)",
                markup=False,
                highlight=False,
            )
        for line in hub_chart(hubs):
            console.print(line, markup=False, highlight=False, soft_wrap=True)

    ctx.emit(data, render)
    return 0
