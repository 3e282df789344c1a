"""The ``tether`` argument parser: every command's options, or one lean command's alone."""

from __future__ import annotations

import argparse
import importlib
import math
import os
import sys
from types import ModuleType
from typing import Any

from recall import __version__
from recall.cli.command_table import (
    COMMAND_SUGGESTIONS,
    LEAN_COMMANDS,
    NO_JSON,
    command_modules,
)
from recall.cli.leading_options import DIRECTORY, JSON, WAIT, command_word
from recall.display import LINE_BREAKS, visible
from recall.errors import EXIT_BAD_INPUT
from recall.store.busy import OWN_WAITS, WRITE_WAIT_MAX_SECONDS, WRITE_WAIT_SECONDS

HELP_MARGIN = 2
"""Columns argparse leaves free at the right of its help (its own default)."""

FALLBACK_COLUMNS = 80
"""The width help is laid out to when neither ``COLUMNS`` nor the terminal gives one, as
:func:`shutil.get_terminal_size` falls back to."""


CLIENT_COLUMNS: list[int | None] = [None]
"""While the warm engine runs a request: the width of the terminal on its client's stdout (0
when that is no terminal), set by :func:`recall.warm.request.run` for that request alone. The
engine's own stdout is no terminal; help must be laid out as the client's process would."""


def terminal_columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` reads it: ``COLUMNS`` when it
    is a positive number, else the width of the terminal on stdout (the warm engine's client's,
    in a request), else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    client = CLIENT_COLUMNS[0]
    return (stdout_columns() if client is None else client) or FALLBACK_COLUMNS


def stdout_columns() -> int:
    """The width of the terminal on this process's stdout; 0 when it is no terminal."""
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 0


class HelpLayout(argparse.HelpFormatter):
    """argparse's help layout, measuring the terminal without :mod:`shutil`.

    argparse makes a formatter for every option added (to check its metavar) and each one
    imports shutil for the width, with its compression modules: a command line that prints
    no help would pay that on every prompt. The width is the one argparse would use.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - HELP_MARGIN
        super().__init__(prog, indent_increment, max_help_position, width)


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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpLayout)
        super().__init__(*args, **kwargs)

    def parse_args(  # type: ignore[override]
        self, args: Any = None, namespace: Any = None
    ) -> argparse.Namespace:
        """argparse's, but words given after the command that no parser took are refused by
        the command's own parser, with its usage (as a bad value of one of its options is),
        not by the top-level one; a word before the command stays the top-level one's."""
        words = list(sys.argv[1:] if args is None else args)
        parsed, extras = self.parse_known_args(words, namespace)
        if extras:
            message = f"unrecognized arguments: {' '.join(extras)}"
            self._command_parser(parsed, words, extras).error(message)
        return parsed

    def _command_parser(
        self, parsed: argparse.Namespace, words: list[str], extras: list[str]
    ) -> argparse.ArgumentParser:
        """The parser of the command ``parsed`` runs when every word of ``extras`` comes after
        the command's name in ``words``; this one otherwise."""
        for action in self._actions:
            if not isinstance(action, argparse._SubParsersAction):
                continue
            name = getattr(parsed, action.dest, None)
            chosen = action.choices.get(name) if isinstance(name, str) else None
            if chosen is None or command_word(words) != name:
                return self
            after = words[words.index(name) + 1 :]
            return chosen if all(word in after for word in extras) else self
        return self

    def error(self, message: str) -> None:  # type: ignore[override]
        from recall.secret_masking import masked  # an argument may be a secret given in error

        message = masked(self._with_choices(message))
        if _HOOK_LINE[0]:  # an agent runs it before every prompt and edit: never exit 2
            from recall.cli.cmd_hook import RUN_AS, refuse

            refuse(f"{message}; {RUN_AS}", self.format_usage())
        if _JSON_ERRORS[0]:  # a script asked for JSON: its errors too, as every command's
            import json

            told = "--help" in message  # an unknown command says where the list is
            said = message if told else f"{message} (`{self.prog} --help` lists what it takes)"
            print(json.dumps({"error": said, "exit_code": EXIT_BAD_INPUT}), file=sys.stderr)
            sys.exit(EXIT_BAD_INPUT)
        self.print_usage(sys.stderr)
        print(f"tether: error: {visible(message, keep=LINE_BREAKS)}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)

    def _with_choices(self, message: str) -> str:
        """argparse's "the following arguments are required: action", with what each missing
        argument that takes one of a few words may be (``action, one of: start``)."""
        head = "the following arguments are required: "
        if not message.startswith(head):
            return message
        named = {
            argparse._get_action_name(action): action.choices
            for action in self._actions
            if action.choices and not isinstance(action, argparse._SubParsersAction)
        }
        told = [
            f"{name} (one of: {', '.join(map(str, named[name]))})" if named.get(name) else name
            for name in message[len(head) :].split(", ")
        ]
        return head + ", ".join(told)


_JSON_ERRORS: list[bool] = [False]
"""Whether the command line being parsed holds ``--json`` (set by :func:`error_mode`)."""

_HOOK_LINE: list[bool] = [False]
"""Whether the command line being parsed runs ``tether hook`` (set by :func:`error_mode`)."""


class _Version(argparse.Action):
    """``--version``: the version on stdout, as ``{"version": ...}`` with ``--json``."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        import json

        print(json.dumps({"version": __version__}) if _JSON_ERRORS[0] else f"tether {__version__}")
        parser.exit(0)


def error_mode(words: list[str]) -> None:
    """How the usage errors of parsing ``words`` are told: as a hook's refusal (exit 0, the
    reason on stderr) for a ``tether hook`` line, whose exit 2 an agent takes as "block this
    action"; as JSON on stderr when they ask for JSON (``--json`` before a lone ``--``), as a
    command's own errors are; else as argparse tells them, exit 2."""
    head = words[: words.index("--")] if "--" in words else words
    _JSON_ERRORS[0] = JSON in head
    _HOOK_LINE[0] = command_word(words) == "hook"


def wait_seconds(text: str) -> float:
    """``--wait``'s value: seconds from 0 to :data:`WRITE_WAIT_MAX_SECONDS`, else an error
    naming the option and what it takes."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds <= WRITE_WAIT_MAX_SECONDS:  # also NaN
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds from 0 to {WRITE_WAIT_MAX_SECONDS:g}"
        )
    return seconds


JSON_HELP = "machine-readable output"
"""``--json``'s help, for every command that takes it."""


def _common_options(wait_help: str, json_help: str = JSON_HELP) -> argparse.ArgumentParser:
    """The options every command takes, ``--json`` and ``--wait`` (helped as ``json_help`` and
    ``wait_help``; ``argparse.SUPPRESS`` leaves one out of the help, still read, so that it is
    refused with a reason rather than as unknown)."""
    common = argparse.ArgumentParser(add_help=False, formatter_class=HelpLayout)
    common.add_argument(JSON, action="store_true", default=argparse.SUPPRESS, help=json_help)
    common.add_argument(
        WAIT,
        type=wait_seconds,
        default=argparse.SUPPRESS,
        metavar="SECONDS",
        help=wait_help,
    )
    return common


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (``--json`` is accepted before or after the subcommand); with
    ``only`` (a key of :data:`LEAN_COMMANDS`) it knows that command alone."""
    wait_help = (
        f"how long a command that writes waits for another Tether process holding the "
        f"store before it fails (default {WRITE_WAIT_SECONDS:g}; 0: fail at once; not for "
        "lsp, mcp, hook and warm, which keep their own)"
    )
    common = _common_options(wait_help)
    # by what a command refuses of them: made once each, when a command needs them
    parents: dict[tuple[bool, bool], argparse.ArgumentParser] = {(False, False): common}

    def parent(name: str) -> argparse.ArgumentParser:
        key = (name in OWN_WAITS, name in NO_JSON)
        if key not in parents:
            suppress = argparse.SUPPRESS
            parents[key] = _common_options(
                suppress if key[0] else wait_help, suppress if key[1] else JSON_HELP
            )
        return parents[key]

    parser = _Parser(
        prog="tether",
        description="Code-aware memory for coding agents: memories tied to their files.",
        parents=[common],
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    parser.add_argument(DIRECTORY, dest="directory", help="run as if started in this directory")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    original = sub.add_parser

    def add_parser(name: str, **kwargs):
        kwargs.setdefault("parents", [parent(name)])
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


def global_form(parser: argparse.ArgumentParser, command: str) -> str | None:
    """How ``command`` is told to use the user-wide store instead of a repository's, as its
    own options say: ``--global``, ``--scope global``, or None when it has no such form (it
    works on a repository only)."""
    commands = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    sub = commands.choices.get(command) if commands is not None else None
    if sub is None:
        return None
    options = {name: action for action in sub._actions for name in action.option_strings}
    if "--global" in options:
        return "--global"
    scope = options.get("--scope")
    if scope is not None and scope.choices is not None and "global" in scope.choices:
        return "--scope global"
    return None
