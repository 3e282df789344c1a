"""The language server's settings keys as data: their names, defaults and value checks, with
no part of the server. The server builds its settings on them (``lsp_server.configuration``),
and ``tether doctor`` checks the values a repository's settings files give them, so a bad one
is said where every other settings problem is, not only in an editor's log."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from recall.config_fields import Warn, apply, count, flag, names, positive, setting
from recall.model import CATEGORIES, WARNING_CATEGORIES
from recall.policy.hints import QUIET_TURNS, SESSION_BUDGET

LEVELS: Final = ("error", "warning", "information", "info", "hint")
"""The diagnostic levels a category may be shown at (the server maps each to the protocol's
severity); ``info`` is ``information`` as most people write it."""

OFF: Final = "off"

DEFAULT_SEVERITY: Final[Mapping[str, str]] = {
    "gotcha": "warning",
    "decision": "information",
    "pref": "information",
    "context": "information",
    "rejected": "warning",
}
"""A gotcha is a warning: it says "this will bite", and so is an approach tried before and
rejected. The others inform, when they are shown."""

DEFAULT_CLIENT_SEVERITY: Final[Mapping[str, str]] = {"opencode": "error"}
"""Per-client overrides, matched against ``clientInfo.name``: OpenCode forwards only errors to
its agent, so a gotcha published as a warning would never reach the model."""

GUARD_SEVERITY: Final = "error"
"""A guarded memory is an error by default, whatever its category: an edit under it must be
looked at first (and OpenCode forwards only errors to its agent)."""

MAX_PER_FILE: Final = 3
"""Memory diagnostics per file: the injection's top three, so a hot file with dozens of
memories does not bury its own code under warnings."""

WARM_FILES: Final = 10
"""Files ranked ahead after the start-up indexing (the ones most memories name, whose first
open costs the most): ten take a second or two of the server's time once, in steps between
messages, and keep little (a few hits each)."""

WARM_FILES_MAX: Final = 100
"""The most files a server ranks ahead: each takes up to about 0.1 s of the loop on a hub file,
so a larger count would hold messages back for minutes and keep a ranking for every file."""

MAX_DOCUMENT_CHARS: Final = 2_000_000
"""Documents larger than this get no diagnostics: generated or vendored files, where searching
for anchors on every keystroke would cost more than a memory is worth."""


def as_table(values: Any) -> Any:
    """``values`` with an empty list read as an empty table: Lua has one ``{}`` for both, and
    Neovim encodes it as JSON ``[]`` (its documented ``init_options = {}``). A list with
    anything in it is left as it is, to be refused as settings."""
    return {} if isinstance(values, list) and not values else values


def _warm_files(value: Any) -> int:
    """``warmFiles``: a whole number from 0 (rank nothing ahead) to :data:`WARM_FILES_MAX`."""
    number = count(value)
    if number > WARM_FILES_MAX:
        raise ValueError(f"give a whole number from 0 to {WARM_FILES_MAX}")
    return number


def _level(value: Any) -> str:
    text = str(value).casefold()
    if text != OFF and text not in LEVELS:
        raise ValueError(f"use one of {', '.join([*LEVELS, OFF])}")
    return text


def _severity(value: Any) -> dict[str, str]:
    value = as_table(value)  # Neovim's empty Lua table
    if isinstance(value, str):  # one level for every category
        level = _level(value)
        return dict.fromkeys(CATEGORIES, level)
    if not isinstance(value, Mapping):
        raise ValueError("give a level or a table of category = level")
    out: dict[str, str] = {}
    for category, level in value.items():
        if category not in CATEGORIES:
            raise ValueError(f"unknown category {category!r}")
        out[category] = _level(level)
    return out


def _client_severity(value: Any) -> dict[str, str]:
    value = as_table(value)
    if not isinstance(value, Mapping):
        raise ValueError("give a table of client name = level")
    return {str(name): _level(level) for name, level in value.items()}


@dataclass(frozen=True)
class ServerSettings:
    """Every key the language server reads, for one workspace root. Each key is the field
    name in any spelling, or an alias (``diagnostic_categories`` for ``categories``).

    A repository's settings may lower an ``only_lower`` limit but not raise it above its
    default; the editor's may set any valid value. Those are the limits whose raising costs
    the user's machine (``max_document_chars``: anchors searched in a huge file on every
    keystroke; ``warm_files``: the loop held at start-up) or attention (``max_per_file``,
    ``hint_session_budget``: more memories shown). The others are not: ``hint_quiet_turns``
    lowered only repeats hints within the budget, which a repository cannot raise;
    ``categories`` and the severities choose what is shown within ``max_per_file``;
    ``index_on_start`` and ``watch_workspace`` are on by default, so a repository can only turn
    them off; ``trusted_workspace`` is ``only_off``."""

    categories: tuple[str, ...] = setting(
        WARNING_CATEGORIES, names(CATEGORIES, "categories"), "diagnostic_categories"
    )
    severity: Mapping[str, str] = setting(DEFAULT_SEVERITY, _severity, merge=True)
    client_severity: Mapping[str, str] = setting(DEFAULT_CLIENT_SEVERITY, _client_severity)
    guard_severity: str = setting(GUARD_SEVERITY, _level)
    max_per_file: int = setting(MAX_PER_FILE, count, only_lower=True)
    hint_quiet_turns: int = setting(QUIET_TURNS, count)
    hint_session_budget: int = setting(SESSION_BUDGET, count, only_lower=True)
    max_document_chars: int = setting(MAX_DOCUMENT_CHARS, positive, only_lower=True)
    index_on_start: bool = setting(True, flag)
    warm_files: int = setting(WARM_FILES, _warm_files, only_lower=True)
    watch_workspace: bool = setting(True, flag)
    trusted_workspace: bool = setting(True, flag, only_off=True)
    """False when the editor says the workspace is not trusted (VS Code passes its workspace
    trust as ``trustedWorkspace``): project memories are still shown, labelled untrusted. A
    source can only take trust away, so a repository's own settings cannot grant it."""


def check_values(sources: Iterable[tuple[str, Mapping[str, Any]]], warn: Warn) -> None:
    """Say each value of the server's keys in ``sources`` (a repository's settings tables)
    that the server would ignore, and each of its settings given twice in one table, as the
    server says them when it reads the same files (a limit raised above its default too)."""
    settings = ServerSettings()
    for name, values in sources:
        settings = apply(settings, name, values, warn, from_repository=True)
