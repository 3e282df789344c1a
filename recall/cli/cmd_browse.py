"""``tether browse``: the terminal browser over both stores (Textual, loaded only here)."""

from __future__ import annotations

import argparse
import sys

from recall.cli.context import CommandContext
from recall.errors import BadInput
from recall.model import CATEGORIES, STATUSES


def register(sub: argparse._SubParsersAction) -> None:
    """Add browse to the CLI."""
    p = sub.add_parser(
        "browse",
        help="browse, search and curate memories in the terminal (needs a terminal)",
    )
    p.add_argument(
        "--scope", choices=("project", "global", "all"), default="all", help="initial filter"
    )
    p.add_argument("--status", choices=(*STATUSES, "all"), default="all", help="initial filter")
    p.add_argument("--category", choices=CATEGORIES, help="initial filter")
    p.set_defaults(func=run_browse)


def run_browse(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Start the browser on the stores of ``--scope``; refuse without a terminal."""
    if ctx.json:
        raise BadInput("browse is interactive; use `tether list --json` for machine output")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise BadInput(
            "browse needs a terminal (stdin and stdout are not one); "
            "use `tether list` (or `tether list --json`) instead"
        )
    from recall.browse.actions import Browser
    from recall.browse.app import BrowseApp
    from recall.browse.view import View

    browser = Browser(ctx.stores("all"))
    view = View(category=args.category, status=args.status, scope=args.scope)
    BrowseApp(browser, view).run()
    return 0
