"""The server's settings: defaults, then the repository's files, then the editor's.

Sources, each overriding the ones before it:

1. defaults (below);
2. ``[tool.tether]`` in the repository's ``pyproject.toml``, then ``.tether/config.toml``;
3. ``initializationOptions`` (Helix ``config``, Neovim ``init_options``, eglot, ``.lsp.json``);
4. the ``tether`` section of ``workspace/configuration`` (pulled only from clients that support
   it; clients that push settings with ``workspace/didChangeConfiguration`` land here too).

Keys may be written camelCase, snake_case or kebab-case. A bad value is reported and ignored.
Fields are declared and read as the engine's are (:mod:`recall.config_fields`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from recall.config_fields import (
    Warn,
    apply,
    count,
    flag,
    fold_key,
    key_names,
    names,
    positive,
    setting,
    unknown_keys,
)
from recall.model import CATEGORIES, WARNING_CATEGORIES
from recall.policy.hints import QUIET_TURNS, SESSION_BUDGET, Policy
from recall.settings import engine_keys, user_config_path
from recall.settings import file_sources as file_sources  # the files are read by the engine

SEVERITIES: dict[str, types.DiagnosticSeverity] = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
OFF = "off"

DEFAULT_SEVERITY: dict[str, str] = {
    "gotcha": "warning",
    "decision": "information",
    "pref": "information",
    "context": "information",
    "rejected": "warning",
}
"""A gotcha is a warning: it says "this will bite", and so is an approach tried before and
rejected. The others inform, when they are shown."""

DEFAULT_CLIENT_SEVERITY: dict[str, str] = {"opencode": "error"}
"""Per-client overrides, matched against ``clientInfo.name``: OpenCode forwards only errors to
its agent, so a gotcha published as a warning would never reach the model."""

GUARD_SEVERITY = "error"
"""A guarded memory is an error by default, whatever its category: an edit under it must be
looked at first (and OpenCode forwards only errors to its agent)."""

MAX_PER_FILE = 3
"""Memory diagnostics per file: the injection's top three, so a hot file with dozens of
memories does not bury its own code under warnings."""

WARM_FILES = 10
"""Files ranked ahead after the start-up indexing (the ones most memories name, whose first
open costs the most): ten take a second or two of the server's time once, in steps between
messages, and keep little (a few hits each)."""

WARM_FILES_MAX = 100
"""The most files a server ranks ahead: each takes up to about 0.1 s of the loop on a hub file,
so a larger count would hold messages back for minutes and keep a ranking for every file."""

PARSE_AHEAD_MAX_BYTES = 256 * 1024
"""The largest file the warm-up parses ahead: a parse holds the loop, and at this size it takes
about what a hub file's ranking does (tens of ms; 6,000 lines of C are about 200 KiB), while a
file of a megabyte takes a second or more. Larger files are parsed when opened, as before."""

MAX_DOCUMENT_CHARS = 2_000_000
"""Documents larger than this get no diagnostics: generated or vendored files, where searching
for anchors on every keystroke would cost more than a memory is worth."""


def _warm_files(value: Any) -> int:
    """``warmFiles``: a whole number from 0 (rank nothing ahead) to :data:`WARM_FILES_MAX`."""
    number = count(value)
    if number > WARM_FILES_MAX:
        raise ValueError(f"give a whole number from 0 to {WARM_FILES_MAX}")
    return number


def _level(value: Any) -> str:
    text = str(value).casefold()
    if text != OFF and text not in SEVERITIES:
        raise ValueError(f"use one of {', '.join([*SEVERITIES, OFF])}")
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
class Settings:
    """Everything the server can be configured with, for one workspace root. Each key is the
    field name in any spelling, or an alias (``diagnostic_categories`` for ``categories``)."""

    categories: tuple[str, ...] = setting(
        WARNING_CATEGORIES, names(CATEGORIES, "categories"), "diagnostic_categories"
    )
    severity: Mapping[str, str] = setting(DEFAULT_SEVERITY, _severity, merge=True)
    client_severity: Mapping[str, str] = setting(DEFAULT_CLIENT_SEVERITY, _client_severity)
    guard_severity: str = setting(GUARD_SEVERITY, _level)
    max_per_file: int = setting(MAX_PER_FILE, count)
    hint_quiet_turns: int = setting(QUIET_TURNS, count)
    hint_session_budget: int = setting(SESSION_BUDGET, count)
    max_document_chars: int = setting(MAX_DOCUMENT_CHARS, positive)
    index_on_start: bool = setting(True, flag)
    warm_files: int = setting(WARM_FILES, _warm_files)
    watch_workspace: bool = setting(True, flag)
    trusted_workspace: bool = setting(True, flag, only_off=True)
    """False when the editor says the workspace is not trusted (VS Code passes its workspace
    trust as ``trustedWorkspace``): project memories are still shown, labelled untrusted. A
    source can only take trust away, so a repository's own settings cannot grant it."""

    def severity_for(
        self, category: str, client_name: str, *, guard: bool = False
    ) -> types.DiagnosticSeverity | None:
        """The severity a memory of ``category`` is published with; None when not shown. A
        guarded memory is shown at ``guard_severity`` whatever its category (unless ``off``)."""
        if guard and self.guard_severity != OFF:
            return SEVERITIES[self.guard_severity]
        if category not in self.categories:
            return None
        name = client_name.casefold()
        for key, level in self.client_severity.items():
            if key and key.casefold() in name:
                return SEVERITIES.get(level)
        return SEVERITIES.get(self.severity.get(category, "information"))

    def policy(self) -> Policy:
        """The hint policy these settings ask for."""
        return Policy(quiet_turns=self.hint_quiet_turns, budget=self.hint_session_budget)


def as_table(values: Any) -> Any:
    """``values`` with an empty list read as an empty table: Lua has one ``{}`` for both, and
    Neovim encodes it as JSON ``[]`` (its documented ``init_options = {}``). A list with
    anything in it is left as it is, to be refused as settings."""
    return {} if isinstance(values, list) and not values else values


def merge(sources: Iterable[tuple[str, Mapping[str, Any] | None]], warn: Warn) -> Settings:
    """Defaults overridden by each source in order (None and non-table sources are skipped,
    a non-table one with a warning; an empty list is an empty table, see :func:`as_table`)."""
    settings = Settings()
    for name, raw in sources:
        values = as_table(raw)
        if isinstance(values, Mapping):
            settings = apply(settings, name, values, warn)  # recall.config_fields
        elif values is not None:
            warn(
                f"{name}: ignored: settings must be a table (an object of key: value), got "
                f"{type(values).__name__}; the other settings apply"
            )
    return settings


NOT_A_SERVER_SETTING = "not a setting of the language server (docs/editors.md lists them)"


def editor_key_problems(source: str, values: Any) -> list[str]:
    """The keys of a table of settings from the editor that the server does not read: one of
    the engine's, which is read from the settings files only, and one no reader knows, said
    with the closest key as a settings file's is (:func:`recall.config_fields.unknown_keys`)."""
    if not isinstance(values, Mapping):
        return []
    known = key_names(Settings)
    engine = engine_keys()
    lines: list[str] = []
    unknown: dict[str, None] = {}
    for raw_key in values:
        folded = fold_key(str(raw_key))
        if folded in known:
            continue
        if folded in engine:
            lines.append(
                f"{source}: {raw_key} ignored: the editor's settings are the language server's; "
                f"Tether reads it from .tether/config.toml, [tool.tether] in pyproject.toml or "
                f"your own {user_config_path()}"
            )
        else:
            unknown[str(raw_key)] = None
    return lines + unknown_keys(source, unknown, known, NOT_A_SERVER_SETTING)
