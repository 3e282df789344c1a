"""hook: the agent hooks (prompt, pre-edit, post-edit, session-start), JSON on stdin."""

from __future__ import annotations

import argparse
import sys

from recall.cli.context import CommandContext

EVENTS = ("prompt", "pre-edit", "post-edit", "session-start")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``hook`` to the CLI."""
    p = sub.add_parser(
        "hook",
        help="an agent hook: reads the hook JSON on stdin, prints what the agent expects",
    )
    p.add_argument("event", choices=EVENTS, help="which hook is being run")
    p.set_defaults(func=run_hook)


def run_hook(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Run one hook; always exit 0, printing nothing unless there is something to say."""
    try:
        raw = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return 0
    from recall import hooks  # the engine is imported only when a hook runs

    text = hooks.run(args.event, raw)
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0
