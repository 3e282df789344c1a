"""The ``tether`` command line: argument parsing, dispatch, and errors turned into exit codes."""

from __future__ import annotations

import gc
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Final

from recall.cli.command_table import LEAN_COMMANDS
from recall.cli.context import OWN_WAITS, CommandContext
from recall.display import LINE_BREAKS, visible
from recall.errors import EXIT_BAD_INPUT, EXIT_FAILURE, BadInput, TetherError
from recall.locations import NoProject
from recall.settings_home import TOLD as SETTINGS_HOME_TOLD

if TYPE_CHECKING:  # the parser is built only for a command line it is needed for
    import argparse

ONE_SHOT: Final = frozenset({"inject", "hook"})
"""Commands an agent runs as a whole process before every prompt and edit, each done within a
fraction of a second: they run without the cyclic garbage collector, whose 20 to 30
collections cost 2-3% of their CPU, while their peak memory at 30k memories is the same with
it off, within 1 MB, even for the first run that builds the index and the genome. ``tether
import`` runs without it too (:data:`COLLECTOR_OFF`); every other command keeps it: servers
live long."""

COLLECTOR_OFF: Final = ONE_SHOT | {"import"}
"""Commands run without the cyclic garbage collector: :data:`ONE_SHOT`'s, and ``tether import``,
whose every draft, memory and result lives until its output is written. With the collector
paused only while it imported (:func:`recall.importer.import_lines`), the collections after it
traversed that heap to find next to nothing: 28 of them, 0.13 s, after an import of
networkmanager's 32,166 commits, between its commit and the end of its output."""

OWN_HOME_NOTES: Final = frozenset({"hook", "lsp", "mcp", "warm"})
"""Commands that serve others and say a ``TETHER_HOME`` they cannot use their own way (a hook
on stderr with its answer, a server to its client): the note that the user's own settings were
not read (:mod:`recall.settings_home`) is every other command's, said once."""


NO_COMMAND: Final = "no command given; `tether --help` lists every command"
"""What ``tether --json`` with no command says (without --json, the help is printed)."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (see :func:`recall.cli.parser.build_parser`)."""
    from recall.cli.parser import build_parser as build

    return build(only)


def _hook_words(words: list[str]) -> SimpleNamespace | None:
    """What the parser makes of ``hook EVENT`` with nothing else on the line, as an agent's
    settings run it before every prompt and edit; None for any other command line. Such a line
    needs no parser: building one (argparse, gettext, and shutil for each option's help
    formatter) is about 4% of a pre-edit hook's instructions."""
    from recall.cli.cmd_hook import EVENTS, run_hook

    if len(words) != 2 or words[0] != "hook" or words[1] not in EVENTS:
        return None
    return SimpleNamespace(command="hook", event=words[1], directory=None, func=run_hook)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one CLI command and return its exit code."""
    from recall.std_streams import (
        OutputFailed,
        closed_stdout,
        guard_stdout,
        stand_in_for_closed_stdin,
    )

    words = list(sys.argv[1:] if argv is None else argv)
    if closed_stdout():
        return 0 if words[:1] == ["hook"] else EXIT_FAILURE  # exit 2 would block an agent
    stand_in_for_closed_stdin()
    guard_stdout()
    args: argparse.Namespace | SimpleNamespace | None = None
    parser: argparse.ArgumentParser | None = None
    if words[:1] == ["hook"]:
        args = _hook_words(words)
    if args is None:
        from recall.cli.parser import error_mode

        error_mode(words)
        parser = build_parser(words[0] if words and words[0] in LEAN_COMMANDS else None)
        try:
            args = parser.parse_args(words)
        except OutputFailed as error:  # --help or --version printed to a full disk
            _report(error, "--json" in words, error.exit_code)
            return error.exit_code
        if not getattr(args, "func", None):
            if getattr(args, "json", False):  # a script asked for JSON: its refusal too
                _report(BadInput(NO_COMMAND), True, EXIT_BAD_INPUT)
            else:
                parser.print_help(sys.stderr)
            return EXIT_BAD_INPUT
    json_output = bool(getattr(args, "json", False))
    command = getattr(args, "command", None) or ""
    refused: str | None = None
    directory = None if args.directory is None else Path(args.directory)
    if args.directory == "":  # Path("") is the current folder: not what was meant
        refused = "-C is empty; give the folder to run in, or leave -C out"
    elif directory is not None and not directory.is_dir():
        what = "is not a folder" if directory.exists() else "does not exist"
        refused = f"-C {directory}: {what}"
    elif command in OWN_WAITS and getattr(args, "wait", None) is not None:
        refused = (
            f"--wait: `tether {command}` keeps the waits of the editor, agent or hook it serves "
            "(a second for a read, 15 s for a write); leave --wait out"
        )
    if refused is None:
        from recall.env_check import read_cautiously, unreadable

        problems = unreadable()
        if problems and command == "hook":  # a hook still runs: its guards must answer
            for line in read_cautiously(problems):
                print(visible(f"tether hook: {line}"), file=sys.stderr)
        elif problems:
            refused = problems[0][1]
    if refused is not None:
        if command == "hook":  # an agent takes exit 2 as "block this action"
            from recall.cli.cmd_hook import refuse

            refuse(refused)
        _report(BadInput(refused), json_output, EXIT_BAD_INPUT)
        return EXIT_BAD_INPUT
    cwd = directory.resolve() if directory is not None else None  # None: looked up
    ctx = CommandContext(json_output=json_output, cwd=cwd, command=command, args=args)
    said = None if command in OWN_HOME_NOTES else ctx.say_settings_left_out
    told = SETTINGS_HOME_TOLD.set(said)
    try:
        return int(args.func(args, ctx))
    except TetherError as error:
        if isinstance(error, NoProject) and parser is not None:
            error = _with_global_form(error, parser, command)
        _report(error, json_output, error.exit_code)
        return error.exit_code
    except sqlite3.DatabaseError as error:
        message = f"the index could not be used ({error}); run `tether reindex` and retry"
        _report(TetherError(message), json_output, EXIT_FAILURE)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("tether: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped early: what it read is all it wanted
        return ctx.verdict  # 0, or the verdict the command decided before its output began
    finally:
        SETTINGS_HOME_TOLD.reset(told)
        ctx.close()


def _with_global_form(error: NoProject, parser: argparse.ArgumentParser, command: str) -> NoProject:
    """``error`` (no repository here) with the way ``command`` reaches the user-wide store
    instead, when it has one: only an option the command takes is named."""
    from recall.cli.parser import global_form

    form = global_form(parser, command)
    if form is None:
        return error
    return type(error)(f"{error}, or use `tether {command} {form}` for your user-wide memories")


def _report(error: Exception, json_output: bool, code: int) -> None:
    from recall.secret_masking import masked  # a refusal may quote a secret given in error

    message = masked(str(error))
    if json_output:
        import json

        payload = {"error": message, "exit_code": code}
        print(json.dumps(payload), file=sys.stderr)
    else:
        print(f"tether: error: {visible(message, keep=LINE_BREAKS)}", file=sys.stderr)


def entry() -> None:
    """Console-script entry point (``python -m recall`` too)."""
    words = sys.argv[1:2]
    if words and words[0] in COLLECTOR_OFF:
        gc.disable()
    else:
        gc.enable()
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()

__all__ = ["EXIT_FAILURE", "build_parser", "main"]
