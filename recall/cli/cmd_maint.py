"""Maintenance commands: reindex and doctor."""

from __future__ import annotations

import argparse

from recall.cli.context import CommandContext


def register(sub: argparse._SubParsersAction) -> None:
    """Add reindex and doctor to the CLI."""
    p = sub.add_parser("reindex", help="rebuild the index from the memory files")
    p.add_argument("--global", dest="global_", action="store_true")
    p.set_defaults(func=run_reindex)

    p = sub.add_parser("doctor", help="list memory files that cannot be loaded (exit 1 if any)")
    p.add_argument("--scope", choices=("project", "global", "all"), default="all")
    p.set_defaults(func=run_doctor)


def run_reindex(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Drop and rebuild the index of one store."""
    store = ctx.global_store() if args.global_ else ctx.project()
    report = store.reindex()
    data = {"memories": store.count(), "problems": len(report.problems), "scope": store.scope}
    ctx.emit(
        data,
        lambda c: c.print(
            f"Reindexed {data['memories']} memories ({data['problems']} files with problems)"
        ),
    )
    return 0


def run_doctor(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Report every problem file as path:line: message."""
    problems = []
    for store in ctx.stores(args.scope):
        problems.extend((store.scope, p) for p in store.problems())
    data = [
        {"scope": s, "path": str(p.path), "line": p.line, "message": p.message} for s, p in problems
    ]

    def render(console) -> None:
        if not problems:
            console.print("No problems found.")
        for _, problem in problems:
            console.print(str(problem), markup=False, highlight=False, soft_wrap=True)

    ctx.emit(data, render)
    return 1 if problems else 0
