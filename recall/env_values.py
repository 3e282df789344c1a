"""The user's ``TETHER_*`` environment variables, read strictly: a value that cannot be read is
refused by name (the variable, its value and the values it takes), never quietly replaced by a
default, since a setting the user believes in force but is not can weaken a protection.

The CLI reads every one at the start of a command (``recall.cli.main``), so a mistyped value
stops the command before it does anything; each reader is also used where the value is
needed, for code that runs outside the CLI.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Final

from recall.errors import BadInput
from recall.switch_words import OFF_WORDS, ON_WORDS

SWITCH_VALUES: Final = "0, false, no or off to turn it off; 1, true, yes or on to turn it on"
INJECT_OTHERS: Final = "TETHER_INJECT_OTHERS"
"""The user's switch for injecting other authors' memories (read by ``recall.policy.trust``)."""


def unreadable(name: str, value: str, takes: str) -> BadInput:
    """The error for ``name=value`` that cannot be read, saying what it takes."""
    return BadInput(f"{name}={value!r} cannot be read: it takes {takes}; fix it or unset it")


def switch(name: str, environ: Mapping[str, str] | None = None) -> bool | None:
    """The on/off variable ``name``: True or False, None when unset or empty; any other value
    is refused (:class:`BadInput`)."""
    raw = (os.environ if environ is None else environ).get(name, "")
    word = raw.strip().casefold()
    if not word:
        return None
    if word in OFF_WORDS:
        return False
    if word in ON_WORDS:
        return True
    raise unreadable(name, raw, SWITCH_VALUES)


def whole_number(name: str, minimum: int) -> int | None:
    """The whole-number variable ``name`` (at least ``minimum``), None when unset or empty;
    any other value is refused (:class:`BadInput`)."""
    raw = os.environ.get(name, "")
    text = raw.strip()
    if not text:
        return None
    if not text.isascii() or not text.isdigit() or int(text) < minimum:
        raise unreadable(name, raw, f"a whole number of at least {minimum:,} (no unit)")
    return int(text)


def seconds(name: str) -> float | None:
    """The variable ``name`` as a positive number of seconds, None when unset or empty; any
    other value is refused (:class:`BadInput`)."""
    raw = os.environ.get(name, "")
    text = raw.strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise unreadable(name, raw, "a positive number of seconds (no unit)")
    return value
