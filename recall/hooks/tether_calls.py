"""Which ``tether`` commands a shell command line runs: how an agent's Bash call is told to be
its own use of memory (hint rule 1, :mod:`recall.policy.hints`).

The line is split the way a shell splits it (quotes, ``;``, ``&&``, ``|``...), and each simple
command counts when its program is ``tether``, by any path (``.venv/bin/tether``, the absolute
path ``tether agent-config`` writes when it is not on the PATH), or ``python -m recall``, after
variable assignments and wrappers such as ``env`` or ``sudo``. A word ``tether`` that is only an
argument (``echo tether show``, ``grep 'tether list'``) runs nothing.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator

_OPERATORS = frozenset({";", "&", "&&", "|", "||", "(", ")", "\n", ";;", "|&"})
_WRAPPERS = frozenset({"env", "command", "exec", "sudo", "time", "nice", "nohup", "builtin"})
_PROGRAMS = frozenset({"tether", "tether.exe"})
_PYTHONS = ("python", "python3")
_OPTION_VALUES = frozenset({"-C"})
"""``tether``'s options before the command name that take a value."""


def subcommands(line: str) -> list[str]:
    """The ``tether`` subcommands (``recall``, ``show``...) that ``line`` runs, in order; none
    for a line a shell could not split (an unclosed quote)."""
    try:
        words = _words(line)
    except ValueError:
        return []
    found = []
    for simple in _simple_commands(words):
        name = _subcommand(simple)
        if name is not None:
            found.append(name)
    return found


def _words(line: str) -> list[str]:
    lexer = shlex.shlex(line.replace("\n", " ; "), posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    return list(lexer)


def _simple_commands(words: list[str]) -> Iterator[list[str]]:
    current: list[str] = []
    for word in words:
        if word in _OPERATORS:
            if current:
                yield current
            current = []
        else:
            current.append(word)
    if current:
        yield current


def _subcommand(words: list[str]) -> str | None:
    """The subcommand of one simple command when its program is ``tether``, else None."""
    at = 0
    while at < len(words) and ("=" in words[at] and not words[at].startswith("=")):
        at += 1  # NAME=value before the program
    while at < len(words) and os.path.basename(words[at]) in _WRAPPERS:
        at += 1
        while at < len(words) and (words[at].startswith("-") or "=" in words[at]):
            at += 1  # the wrapper's options and env's assignments
    if at >= len(words):
        return None
    program = os.path.basename(words[at])
    if program in _PROGRAMS:
        at += 1
    elif program.startswith(_PYTHONS) and words[at + 1 : at + 3] == ["-m", "recall"]:
        at += 3
    else:
        return None
    while at < len(words) and words[at].startswith("-"):
        at += 2 if words[at] in _OPTION_VALUES else 1
    return words[at] if at < len(words) else None
