"""How a surface is told that the user's own settings were left unread because ``TETHER_HOME``
cannot be used where a command runs (:class:`recall.locations.HomeUnusable`).

The settings are read deep inside a command (an embedder chosen for a write, a limit for a
pass), where only a settings warning's callback reaches; that callback says setting problems,
not the home's state, which each surface says its own way once. A surface that wants the
settings' part of it said sets :data:`TOLD` for the duration of one command (the CLI does);
elsewhere nothing is added to what the surface already says.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from recall.locations import HOME_ENV

TOLD: ContextVar[Callable[[str], None] | None] = ContextVar("settings_home_told", default=None)
"""Called with the :class:`recall.locations.HomeUnusable` message each time the user's own
settings are not read for it; None: the running surface says the home's state otherwise."""


def settings_left_out(reason: str) -> str:
    """What a command says, once, when it reads settings without the user's own (``reason``:
    the :class:`recall.locations.HomeUnusable` message: the variable, its value, why, what to
    do)."""
    return (
        f"your own settings (kept in {HOME_ENV}) are not read: {reason}; the defaults and this "
        "repository's settings apply"
    )


def tell(reason: str) -> None:
    """Pass ``reason`` to the surface that asked to be told (:data:`TOLD`), if any."""
    told = TOLD.get()
    if told is not None:
        told(reason)
