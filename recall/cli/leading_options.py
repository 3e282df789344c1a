"""The options given before a command's name (``tether --json -C DIR inject``): their names,
which the parser defines its options by, and a command line split into them and its command,
for the warm engine's client, which runs before any heavy import (so: no argparse here)."""

from __future__ import annotations

JSON = "--json"
"""Machine-readable output; taken before the command's name or after it."""

WAIT = "--wait"
"""How long a write waits for another process holding the store; takes a value."""

DIRECTORY = "-C"
"""Run as if started in this folder, as ``git -C`` does; takes a value."""

VALUED = frozenset({DIRECTORY, WAIT})
"""The options before a command that take the next word as their value."""


def command_word(words: list[str]) -> str | None:
    """The command ``words`` run (``hook`` in ``tether -C DIR hook prompt``): the first word
    that is neither an option nor the value of one; None when there is none."""
    valued = False
    for word in words:
        if valued:
            valued = False
        elif word in VALUED:
            valued = True
        elif not word.startswith("-"):
            return word
    return None


def without_directory(words: list[str]) -> tuple[list[str], str | None] | None:
    """``words`` with its ``-C DIR`` left out, and DIR (the last one given, as the parser keeps
    it; None without one): the same command line run in DIR. None when a word before the
    command is not one of :data:`JSON`, :data:`WAIT` or :data:`DIRECTORY` written apart from
    its value (``--help``, ``--version``, ``--wait=5``, ``-Cdir``, an abbreviation, a value
    that looks like an option), or there is no command: those are left to the parser."""
    kept: list[str] = []
    directory: str | None = None
    at = 0
    while at < len(words):
        word = words[at]
        if not word.startswith("-"):
            return kept + words[at:], directory
        if word == JSON:
            kept.append(word)
            at += 1
            continue
        if word not in VALUED or at + 1 == len(words) or words[at + 1].startswith("-"):
            return None
        if word == DIRECTORY:
            directory = words[at + 1]
        else:
            kept += [word, words[at + 1]]
        at += 2
    return None
