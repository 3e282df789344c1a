"""``tether lsp``: run the language server over stdio (the server package is loaded only here,
inside the command, through its entry point, so the rest of the CLI starts without it)."""

from __future__ import annotations

import argparse

from recall.cli.context import CommandContext
from recall.errors import BadInput
from recall.stdio_servers import log_level_option, stdio_flag


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``lsp`` to the CLI."""
    # no --json: the server speaks JSON-RPC on stdio whatever is asked
    p = sub.add_parser(
        "lsp", help="run the language server over stdio (for editors and agents)", parents=[]
    )
    stdio_flag(p)
    log_level_option(p)
    p.set_defaults(func=run_lsp)


def run_lsp(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Serve one client until it disconnects."""
    if ctx.json:
        raise BadInput("lsp speaks JSON-RPC on stdio; --json does not apply to it")
    from recall.cli.servers import server

    return server("lsp")(log_level=args.log_level)
