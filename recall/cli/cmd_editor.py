"""``tether editor-config EDITOR``: print the configuration that starts ``tether lsp`` there."""

from __future__ import annotations

import argparse
import shlex
import sys

from recall.cli.context import CommandContext
from recall.errors import BadInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``editor-config`` to the CLI."""
    from recall.cli.editor_configs import EDITORS

    p = sub.add_parser(
        "editor-config", help="print the set-up that runs the language server in an editor"
    )
    p.add_argument("editor", choices=EDITORS, help="the editor to print the set-up for")
    p.add_argument(
        "--command",
        help="how to start the server (default: 'tether lsp' when this tether is on PATH, "
        "else its absolute path, e.g. '/path/venv/bin/tether lsp')",
    )
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="LANGUAGE",
        help="helix: only these languages (repeatable; default every language Helix knows)",
    )
    p.set_defaults(func=run_editor_config)


def run_editor_config(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Print one editor's configuration snippet."""
    from recall.cli.editor_configs import default_program, render

    if args.command is None:
        program, why = default_program()
        command = [*program, "lsp"]
    else:
        command, why = shlex.split(args.command), "given with --command"
    if not command:
        raise BadInput("--command is empty; give the program that runs the server")
    if args.only and args.editor != "helix":
        raise BadInput("--only applies to helix only")
    text = render(args.editor, command, args.only)
    if ctx.json:
        ctx.emit({"editor": args.editor, "config": text, "command": command, "why": why})
    else:
        sys.stdout.write(text)
        print(
            f"tether: the server command written is {shlex.join(command)} ({why})", file=sys.stderr
        )
    return 0
