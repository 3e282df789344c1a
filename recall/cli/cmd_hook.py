"""hook: the agent hooks (prompt, pre-edit, post-edit, session-start), JSON on stdin.

A hook's command line is written once into an agent's settings and then run before every
prompt and edit. Claude Code treats exit code 2 as "block this action", so a command line this
parser rejects (an unknown event, a stray option) must not exit 2 the way other commands do:
the hook exits 0, does nothing, and says why on stderr.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:  # a hook's command line is parsed without argparse (recall.cli.main)
    import argparse
    from types import SimpleNamespace

    from recall.cli.context import CommandContext

EVENTS = ("prompt", "pre-edit", "post-edit", "session-start")


def refuse(message: str) -> NoReturn:
    """A hook command line that cannot be run: the reason on stderr, exit 0."""
    print(
        f"tether hook: {message} (the hook did nothing; exit 0 so the agent is not blocked)",
        file=sys.stderr,
    )
    sys.exit(0)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``hook`` to the CLI."""
    p = sub.add_parser(
        "hook",
        help="an agent hook: reads the hook JSON on stdin, prints what the agent expects",
    )
    p.add_argument(
        "event", nargs="?", metavar="{" + ",".join(EVENTS) + "}", help="which hook is being run"
    )
    p.error = refuse  # type: ignore[method-assign]
    parse_known = p.parse_known_args

    def parse_all(args=None, namespace=None):  # type: ignore[no-untyped-def]
        """Words this parser does not know are refused here, not by the top-level parser
        (which would exit 2)."""
        parsed, extras = parse_known(args, namespace)
        if extras:
            refuse(f"unexpected arguments: {' '.join(extras)}")
        return parsed, extras

    p.parse_known_args = parse_all  # type: ignore[method-assign]
    p.set_defaults(func=run_hook)


def run_hook(args: argparse.Namespace | SimpleNamespace, ctx: CommandContext) -> int:
    """Run one hook; always exit 0, printing nothing unless there is something to say."""
    if args.event not in EVENTS:
        got = f"unknown event {args.event!r}" if args.event else "no event given"
        refuse(f"{got}; use one of {', '.join(EVENTS)}")
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
