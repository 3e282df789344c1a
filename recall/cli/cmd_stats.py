"""``tether stats``: per category, how many memories are kept, shown, acted on and retired,
with charts of surfaced against acted per week and of the files most memories name.

The ``archived`` column counts what is archived for the user reading it: archived by a person,
or by their own disuse (a note under the table says how many of those; ``--json`` has them as
``archived_by_disuse``), the same memories ``tether list --status archived`` lists.
"""

from __future__ import annotations

import argparse

from recall.charts import activity_chart, bar, hub_chart
from recall.cli.blocks import fits, print_stat_blocks
from recall.cli.context import CommandContext
from recall.cli.render import scope_option
from recall.clock import now
from recall.lifecycle.stats import CategoryStats, overview


def register(sub: argparse._SubParsersAction) -> None:
    """Add stats to the CLI."""
    p = sub.add_parser(
        "stats",
        help="per category: memories, surfaced, acted, follow-through; use over time, hub files",
    )
    scope_option(p, default="project")
    p.set_defaults(func=run_stats)


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


def _fields(entry: CategoryStats) -> list[str]:
    """A category's numbers as ``name value`` fields: its block on a narrow terminal."""
    return [
        f"memories {entry.memories}",
        f"surfaced {entry.surfaced}",
        f"acted {entry.acted}",
        f"follow-through {_percent(entry.follow_through)}",
        f"archived {entry.archived}",
        f"superseded {entry.superseded}",
    ]


def run_stats(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Print the per-category table (or JSON); on a terminal too narrow for the table whole,
    a block of numbers per category."""
    stores = ctx.stores(args.scope)
    ctx.say_if_not_set_up(stores)
    found = overview([store.conn for store in stores], now().date())
    table, total, hubs, weekly = found.categories, found.total, found.hubs, found.activity
    data = {
        "scope": args.scope,
        "categories": [entry.to_dict() for entry in table],
        "total": total.to_dict(),
        "hub_files": [{"path": path, "memories": count} for path, count in hubs],
        "activity": weekly.to_dict(),
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
        whole = fits(console, view)
        if whole:
            console.print(view)
        else:
            blocks = [(entry.category, _fields(entry)) for entry in [*table, total]]
            print_stat_blocks(console, f"Memory use ({args.scope})", blocks)
        if total.archived_by_disuse:
            console.print(disuse_note(total.archived_by_disuse), markup=False, highlight=False)
        if total.pending:
            console.print(
                f"{total.pending} auto-distilled pending review (`tether pending`)",
                markup=False,
                highlight=False,
            )
        # Narrow: rich wraps each chart line between words, so no number is split. Otherwise
        # each goes out whole (a long path too): an overflow rule would cut it at the width.
        overflow = None if whole else "fold"
        for line in [*activity_chart(weekly), *hub_chart(hubs)]:
            console.print(line, markup=False, highlight=False, soft_wrap=whole, overflow=overflow)

    ctx.emit(data, render)
    return 0
