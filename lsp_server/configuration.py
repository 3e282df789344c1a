"""The server's settings: defaults, then the repository's files, then the editor's.

Sources, each overriding the ones before it:

1. defaults (below);
2. ``[tool.tether]`` in the repository's ``pyproject.toml``, then ``.tether/config.toml``;
3. ``initializationOptions`` (Helix ``config``, Neovim ``init_options``, eglot, ``.lsp.json``);
4. the ``tether`` section of ``workspace/configuration`` (pulled only from clients that support
   it; clients that push settings with ``workspace/didChangeConfiguration`` land here too).

Keys may be written camelCase, snake_case or kebab-case. A bad value is reported and ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from lsprotocol import types

from recall.hints import QUIET_TURNS, SESSION_BUDGET, Policy
from recall.model import CATEGORIES
from recall.settings import Warn
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
}
"""A gotcha is a warning: it says "this will bite". The others inform, when they are shown."""

DEFAULT_CLIENT_SEVERITY: dict[str, str] = {"opencode": "error"}
"""Per-client overrides, matched against ``clientInfo.name``: OpenCode forwards only errors to
its agent, so a gotcha published as a warning would never reach the model."""

MAX_PER_FILE = 3
"""Memory diagnostics per file: the injection's top three, so a hot file with dozens of
memories does not bury its own code under warnings."""

MAX_DOCUMENT_CHARS = 2_000_000
"""Documents larger than this get no diagnostics: generated or vendored files, where searching
for anchors on every keystroke would cost more than a memory is worth."""


@dataclass(frozen=True)
class Settings:
    """Everything the server can be configured with, for one workspace root."""

    categories: tuple[str, ...] = ("gotcha",)
    severity: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_SEVERITY))
    client_severity: Mapping[str, str] = field(
        default_factory=lambda: dict(DEFAULT_CLIENT_SEVERITY)
    )
    max_per_file: int = MAX_PER_FILE
    hint_quiet_turns: int = QUIET_TURNS
    hint_session_budget: int = SESSION_BUDGET
    max_document_chars: int = MAX_DOCUMENT_CHARS
    index_on_start: bool = True
    watch_workspace: bool = True
    trusted_workspace: bool = True
    """False when the editor says the workspace is not trusted (VS Code passes its workspace
    trust as ``trustedWorkspace``): project memories are still shown, labelled untrusted. A
    source can only take trust away, so a repository's own settings cannot grant it."""

    def severity_for(self, category: str, client_name: str) -> types.DiagnosticSeverity | None:
        """The severity a memory of ``category`` is published with; None when not shown."""
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


def _key(name: str) -> str:
    return name.replace("_", "").replace("-", "").casefold()


def _level(value: Any) -> str:
    text = str(value).casefold()
    if text != OFF and text not in SEVERITIES:
        raise ValueError(f"use one of {', '.join([*SEVERITIES, OFF])}")
    return text


def _categories(value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
        raise ValueError("give a list of categories")
    unknown = [i for i in items if i not in CATEGORIES]
    if unknown:
        raise ValueError(f"unknown {unknown[0]!r}; use {', '.join(CATEGORIES)}")
    return tuple(dict.fromkeys(items))


def _severity(value: Any) -> dict[str, str]:
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
    if not isinstance(value, Mapping):
        raise ValueError("give a table of client name = level")
    return {str(name): _level(level) for name, level in value.items()}


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("give a whole number, 0 or more")
    return value


def _positive(value: Any) -> int:
    if _count(value) == 0:
        raise ValueError("give a whole number above 0")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("give true or false")
    return value


_FIELDS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "diagnosticcategories": ("categories", _categories),
    "categories": ("categories", _categories),
    "severity": ("severity", _severity),
    "clientseverity": ("client_severity", _client_severity),
    "maxperfile": ("max_per_file", _count),
    "hintquietturns": ("hint_quiet_turns", _count),
    "hintsessionbudget": ("hint_session_budget", _count),
    "maxdocumentchars": ("max_document_chars", _positive),
    "indexonstart": ("index_on_start", _flag),
    "watchworkspace": ("watch_workspace", _flag),
    "trustedworkspace": ("trusted_workspace", _flag),
}


def apply(settings: Settings, source: str, values: Mapping[str, Any], warn: Warn) -> Settings:
    """``settings`` with the known keys of ``values`` applied; bad values are reported."""
    changes: dict[str, Any] = {}
    for raw_key, value in values.items():
        known = _FIELDS.get(_key(str(raw_key)))
        if known is None:
            continue
        name, parse = known
        try:
            parsed = parse(value)
        except ValueError as error:
            warn(f"{source}: ignoring {raw_key} = {value!r}: {error}")
            continue
        if name == "severity":
            parsed = {**settings.severity, **changes.get("severity", {}), **parsed}
        if name == "trusted_workspace":
            parsed = parsed and settings.trusted_workspace
        changes[name] = parsed
    return replace(settings, **changes) if changes else settings


def merge(sources: Iterable[tuple[str, Mapping[str, Any] | None]], warn: Warn) -> Settings:
    """Defaults overridden by each source in order (None and non-table sources are skipped)."""
    settings = Settings()
    for name, values in sources:
        if isinstance(values, Mapping):
            settings = apply(settings, name, values, warn)
        elif values is not None:
            warn(f"{name}: expected a table of settings, got {type(values).__name__}")
    return settings
