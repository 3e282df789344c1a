"""The ``tether`` command line: argument parsing, dispatch, and errors turned into exit codes."""

from __future__ import annotations

import argparse
import gc
import importlib
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Final

from recall import __version__
from recall.cli.context import CommandContext
from recall.errors import EXIT_BAD_INPUT, EXIT_FAILURE, BadInput, TetherError

LEAN_COMMANDS: Final = {
    "hook": "recall.cli.cmd_hook",
    "mcp": "recall.cli.cmd_mcp",
    "inject": "recall.cli.cmd_recall",
    "recall": "recall.cli.cmd_recall",
    "import": "recall.cli.cmd_io",
    "export": "recall.cli.cmd_io",
}
"""Commands agents run (a hook before every prompt and edit, the MCP server at each session
start, ``inject`` and ``recall`` from their own hooks and scripts), parsed with their own module
only: the other commands' modules (curation, maintenance, the browser, distill) cost start-up
time that a hook's 250 ms budget cannot spare, and an edit hook never needs the ranking
engine (numpy) at all. ``import`` and ``export`` too: scripts run them over whole histories,
and the other modules are a tenth of a second of CPU that a bulk import is measured against."""

ONE_SHOT: Final = frozenset({"inject", "hook"})
"""Commands an agent runs as a whole process before every prompt and edit, each done within a
fraction of a second: they run without the cyclic garbage collector, whose 20 to 30
collections cost 2-3% of their CPU, while their peak memory at 30k memories is the same with
it off, within 1 MB, even for the first run that builds the index and the genome. Every other
command keeps it: servers live long and bulk imports build large structures."""

COMMAND_SUGGESTIONS = 3
"""Commands offered for a mistyped one: enough for a near miss, few enough to read."""


def command_modules() -> tuple[ModuleType, ...]:
    """Every command module, in the order their commands are listed."""
    from recall.cli import (
        cmd_agent_config,
        cmd_browse,
        cmd_check,
        cmd_cleanup,
        cmd_distill,
        cmd_editor,
        cmd_genome,
        cmd_hook,
        cmd_io,
        cmd_listing,
        cmd_lsp,
        cmd_maint,
        cmd_mcp,
        cmd_memory,
        cmd_recall,
        cmd_session,
        cmd_state,
        cmd_stats,
    )

    return (
        cmd_memory,
        cmd_listing,
        cmd_state,
        cmd_recall,
        cmd_genome,
        cmd_io,
        cmd_maint,
        cmd_check,
        cmd_stats,
        cmd_session,
        cmd_cleanup,
        cmd_browse,
        cmd_distill,
        cmd_lsp,
        cmd_mcp,
        cmd_editor,
        cmd_hook,
        cmd_agent_config,
    )


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on stderr and exit code 2, like every other bad input, and
    a "did you mean" for a mistyped command."""

    def _check_value(self, action: argparse.Action, value: object) -> None:
        if (
            isinstance(action, argparse._SubParsersAction)
            and isinstance(value, str)
            and value not in action.choices
        ):
            import difflib

            close = difflib.get_close_matches(value, list(action.choices), n=COMMAND_SUGGESTIONS)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            raise argparse.ArgumentError(
                None, f"unknown command {value!r}{hint} (`tether --help` lists every command)"
            )
        super()._check_value(action, value)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"tether: error: {message}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (``--json`` is accepted before or after the subcommand); with
    ``only`` (a key of :data:`LEAN_COMMANDS`) it knows that command alone."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output"
    )
    parser = _Parser(
        prog="tether",
        description="Code-aware memory for coding agents: memories tied to their files.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"tether {__version__}")
    parser.add_argument(
        "-C", dest="directory", type=Path, help="run as if started in this directory"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    original = sub.add_parser

    def add_parser(name: str, **kwargs):
        kwargs.setdefault("parents", [common])
        # the one-line summary of the command list heads the command's own --help too
        kwargs.setdefault("description", kwargs.get("help"))
        return original(name, **kwargs)

    sub.add_parser = add_parser  # type: ignore[method-assign]
    if only is not None:
        modules: tuple[ModuleType, ...] = (importlib.import_module(LEAN_COMMANDS[only]),)
    else:
        modules = command_modules()
    for module in modules:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one CLI command and return its exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words and words[0] in LEAN_COMMANDS else None)
    args = parser.parse_args(words)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    json_output = bool(getattr(args, "json", False))
    if args.directory is not None and not args.directory.is_dir():
        what = "is not a folder" if args.directory.exists() else "does not exist"
        _report(BadInput(f"-C {args.directory}: {what}"), json_output, EXIT_BAD_INPUT)
        return EXIT_BAD_INPUT
    cwd = (args.directory or Path.cwd()).resolve()
    ctx = CommandContext(json_output=json_output, cwd=cwd)
    try:
        return int(args.func(args, ctx))
    except TetherError as error:
        _report(error, json_output, error.exit_code)
        return error.exit_code
    except sqlite3.DatabaseError as error:
        message = f"the index could not be used ({error}); run `tether reindex` and retry"
        _report(TetherError(message), json_output, EXIT_FAILURE)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("tether: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    finally:
        ctx.close()


def _report(error: Exception, json_output: bool, code: int) -> None:
    if json_output:
        import json

        payload = {"error": str(error), "exit_code": code}
        print(json.dumps(payload), file=sys.stderr)
    else:
        print(f"tether: error: {error}", file=sys.stderr)


def entry() -> None:
    """Console-script entry point (``python -m recall`` too)."""
    words = sys.argv[1:2]
    if words and words[0] in ONE_SHOT:
        gc.disable()
    else:
        gc.enable()
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()

__all__ = ["EXIT_FAILURE", "build_parser", "main"]
