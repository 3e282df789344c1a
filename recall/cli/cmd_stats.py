"""``tether stats``: per category, how many memories are kept, shown, acted on and retired."""

from __future__ import annotations

import argparse

from recall.cli.context import CommandContext
from recall.stats import CategoryStats, category_stats, merge, totals

# Cells of the follow-through bar: fine enough to tell 10% from 25%, narrow enough that the
# whole table fits 80 columns.
BAR_WIDTH = 12


def register(sub: argparse._SubParsersAction) -> None:
    """Add stats to the CLI."""
    p = sub.add_parser("stats", help="per category: memories, surfaced, acted, follow-through")
    p.add_argument("--scope", choices=("project", "global", "all"), default="project")
    p.set_defaults(func=run_stats)


def bar(rate: float | None, width: int = BAR_WIDTH) -> str:
    """A text bar for a rate in [0, 1]; dots when there is no rate (nothing surfaced)."""
    if rate is None:
        return "·" * width
    filled = round(max(0.0, min(1.0, rate)) * width)
    return "█" * filled + "░" * (width - filled)


def _percent(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.0%}"


def run_stats(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Print the per-category table (or JSON)."""
    stores = ctx.stores(args.scope)
    table = merge([category_stats(store.conn) for store in stores])
    total = totals(table)
    data = {
        "scope": args.scope,
        "categories": [entry.to_dict() for entry in table],
        "total": total.to_dict(),
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

    ctx.emit(data, render)
    return 0
