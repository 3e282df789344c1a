"""``tether editor-config EDITOR``: print the configuration that starts ``tether lsp`` there."""

from __future__ import annotations

import argparse
import difflib
import json
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
        help="how to start the server: a program's path (spaces and all), or a command line "
        "in shell quoting; `lsp` is added when the program is tether and no `lsp` is given "
        "(default: 'tether lsp' when this tether is on PATH, else its absolute path, e.g. "
        "'/path/venv/bin/tether lsp')",
    )
    p.add_argument(
        "--allow-missing",
        action="store_true",
        help="write a --command whose program is not here (not on PATH, not a file, not "
        "executable), e.g. for another machine",
    )
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="LANGUAGE",
        help="helix: only these languages (repeatable; default every language Helix knows)",
    )
    p.set_defaults(func=run_editor_config)


JSON_EDITORS = frozenset({"sublime", "claude-code", "opencode"})
"""The editors whose snippet is a JSON document, given parsed too (``config_json``) with --json."""


def run_editor_config(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Print one editor's configuration snippet."""
    from recall.cli.command_option import given_command, server_command
    from recall.cli.editor_configs import default_program, render

    if args.only and args.editor != "helix":
        raise BadInput("--only applies to helix only")
    if args.only:
        check_languages(args.only)
    if args.command is None:
        program, why = default_program()
        command = [*program, "lsp"]
    else:
        given = given_command(args.command, ctx.cwd, allow_missing=args.allow_missing)
        command, added = server_command(given)
        why = "given with --command" + (f"; {added}" if added else "")
    text = render(args.editor, command, args.only)
    if ctx.json:
        report: dict[str, object] = {"editor": args.editor, "config": text}
        if args.editor in JSON_EDITORS:
            report["config_json"] = json.loads(text)
        ctx.emit({**report, "command": command, "why": why})
    else:
        sys.stdout.write(text)
        print(
            f"tether: the server command written is {shlex.join(command)} ({why})", file=sys.stderr
        )
    return 0


def check_languages(only: list[str]) -> None:
    """Raise :class:`BadInput` naming each ``--only`` language Helix does not know (a block for
    it would have no scope or file types, and Helix rejects the whole file)."""
    from recall.cli.helix_languages import LANGUAGES

    known = sorted(name for name, _ in LANGUAGES)
    names = set(known)
    unknown = [name for name in dict.fromkeys(only) if name not in names]
    if not unknown:
        return
    named = []
    guessed = True
    for name in unknown:
        close = difflib.get_close_matches(name, known, n=1)
        guessed = guessed and bool(close)
        named.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    # Every name with a likely meaning: the several hundred names Helix knows would bury it.
    where = (
        f"without --only, each of the {len(known)} languages Helix knows gets a block"
        if guessed
        else f"give one of the languages Helix knows: {', '.join(known)}"
    )
    raise BadInput(f"--only: Helix knows no language {', '.join(named)}; {where}")
