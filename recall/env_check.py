"""The ``TETHER_*`` variables every command reads, checked before it runs: a value that cannot
be read stops a command (exit 2, naming it), but never a hook. A hook that stopped would let
an edit past the guards it exists to ask about, so it runs with each such variable read the
cautious way (another author's memories held back, the warm engine off, the defaults for the
rest) and says so on stderr.

``TETHER_HOME`` is not among them: it is decided where the user-wide store is opened
(:func:`recall.locations.global_location`), by one rule for every surface: a read goes on
with the project's memories alone, said, and only a use of the user-wide store is refused."""

from __future__ import annotations

import os
from collections.abc import Callable

from recall.errors import BadInput

Problem = tuple[str, str, "str | None", str]
"""A variable that cannot be read: its name, what is wrong, the value a hook reads it as
(None: as if unset) and how that reading is said."""


def _variables() -> list[tuple[str, Callable[[], object], str | None, str]]:
    """Each variable: its name, its reader, a hook's cautious reading of it, how it is said."""
    from recall.clock import now
    from recall.env_values import INJECT_OTHERS, seconds, switch
    from recall.memfiles import MAX_FILE_BYTES_ENV, max_file_bytes
    from recall.warm.protocol import ENV_IDLE, ENV_SWITCH

    return [
        ("TETHER_NOW", now, None, "the real clock"),
        (INJECT_OTHERS, lambda: switch(INJECT_OTHERS), "0", "off"),
        (MAX_FILE_BYTES_ENV, max_file_bytes, None, "the default limit"),
        (ENV_SWITCH, lambda: switch(ENV_SWITCH), "0", "off"),
        (ENV_IDLE, lambda: seconds(ENV_IDLE), None, "the default"),
    ]


def unreadable() -> list[Problem]:
    """Each variable whose value cannot be read (see :data:`Problem`)."""
    found: list[Problem] = []
    for name, check, cautious, how in _variables():
        try:
            check()
        except BadInput as error:
            found.append((name, str(error), cautious, how))
    return found


def read_cautiously(problems: list[Problem]) -> list[str]:
    """Set each variable of ``problems`` to its cautious reading for this process; the line
    saying so for each."""
    said = []
    for name, message, cautious, how in problems:
        if cautious is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = cautious
        said.append(f"{message}; this hook reads it as {how}")
    return said
