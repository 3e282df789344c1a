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


RUN_AS = (
    f"a hook runs as `tether hook EVENT`, EVENT one of {', '.join(EVENTS)}: correct the "
    "command in the agent's hook settings"
)
"""What a hook command line the parser refuses is told to be."""


def refuse(message: str, usage: str | None = None) -> NoReturn:
    """A hook command line that cannot be run: the parser's ``usage`` (when a word of it is
    refused, as every command shows its own) and the reason on stderr in one line, a secret
    given in error masked, exit 0."""
    from recall.display import visible
    from recall.secret_masking import masked

    if usage:
        sys.stderr.write(usage)
    said = visible(masked(message))
    print(
        f"tether hook: {said} (the hook did nothing; exit 0 so the agent is not blocked)",
        file=sys.stderr,
    )
    sys.exit(0)


def event_problem(event: str | None) -> str | None:
    """Why ``event`` is no hook's event (with the closest one for a typo); None when it is."""
    if event in EVENTS:
        return None
    if not event:
        return f"no event given; {RUN_AS}"
    import difflib

    close = difflib.get_close_matches(event, EVENTS, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"unknown event {event!r}{hint}; {RUN_AS}"


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``hook`` to the CLI."""
    p = sub.add_parser(
        "hook",
        help="an agent hook: reads the hook JSON on stdin, prints what the agent expects",
    )
    p.add_argument(
        "event", nargs="?", metavar="{" + ",".join(EVENTS) + "}", help="which hook is being run"
    )
    p.error = lambda message: refuse(message, p.format_usage())  # type: ignore[method-assign]
    parse_known = p.parse_known_args

    def parse_all(args=None, namespace=None):  # type: ignore[no-untyped-def]
        """Words this parser does not know, and an event no hook has, are refused here with
        the hook's usage, not by the top-level parser (which would exit 2)."""
        parsed, extras = parse_known(args, namespace)
        if extras:
            refuse(f"unrecognized arguments: {' '.join(extras)}; {RUN_AS}", p.format_usage())
        problem = event_problem(parsed.event)
        if problem is not None:
            refuse(problem, p.format_usage())
        return parsed, extras

    p.parse_known_args = parse_all  # type: ignore[method-assign]
    p.set_defaults(func=run_hook)


def run_hook(args: argparse.Namespace | SimpleNamespace, ctx: CommandContext) -> int:
    """Run one hook; always exit 0, printing nothing unless there is something to say."""
    problem = event_problem(args.event)
    if problem is not None:  # the parser refuses it first; kept for a caller without one
        refuse(problem)
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
