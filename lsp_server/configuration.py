"""The server's settings: defaults, then the repository's files, then the editor's.

Sources, each overriding the ones before it:

1. defaults (:mod:`recall.server_settings`, where the keys are declared);
2. ``[tool.tether]`` in the repository's ``pyproject.toml``, then ``.tether/config.toml``
   (which may lower a limit, such as ``maxDocumentChars``, but not raise it above its default);
3. ``initializationOptions`` (Helix ``config``, Neovim ``init_options``, eglot, ``.lsp.json``);
4. the ``tether`` section of ``workspace/configuration`` (pulled only from clients that support
   it; clients that push settings with ``workspace/didChangeConfiguration`` land here too).
   A pulled table replaces 3: the editor's settings, taken again (:func:`lifecycle.configure`).

Keys may be written camelCase, snake_case or kebab-case. A bad value is reported and ignored;
one in a repository's file is named with the file and the line of its key (``path:line:``).
Fields are declared and read as the engine's are (:mod:`recall.config_fields`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from recall.config_fields import Warn, apply, fold_key, key_names, unknown_keys
from recall.policy.hints import Policy
from recall.server_settings import OFF, ServerSettings
from recall.server_settings import WARM_FILES as WARM_FILES
from recall.server_settings import WARM_FILES_MAX as WARM_FILES_MAX
from recall.server_settings import as_table as as_table
from recall.settings import engine_keys, user_config_path
from recall.settings import file_sources as file_sources  # the files are read by the engine

SEVERITIES: dict[str, types.DiagnosticSeverity] = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
"""The protocol's severity of each level a setting may name (:data:`recall.server_settings.
LEVELS`, which a test keeps equal to these keys)."""

PARSE_AHEAD_MAX_BYTES = 256 * 1024
"""The largest file the warm-up parses ahead: a parse holds the loop, and at this size it takes
about what a hub file's ranking does (tens of ms; 6,000 lines of C are about 200 KiB), while a
file of a megabyte takes a second or more. Larger files are parsed when opened, as before."""


@dataclass(frozen=True)
class Settings(ServerSettings):
    """Everything the server can be configured with, for one workspace root: the keys of
    :class:`recall.server_settings.ServerSettings`, with what the server makes of them."""

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


Source = tuple[str, Mapping[str, Any] | None]


def merge(sources: Iterable[Source], warn: Warn, *, repository: Iterable[Source] = ()) -> Settings:
    """Defaults overridden by each of the ``repository``'s settings tables, then each source in
    order (None and non-table sources are skipped, a non-table one with a warning; an empty
    list is an empty table, see :func:`as_table`). A repository's table may lower a limit but
    not raise it above its default (``only_lower`` in :mod:`recall.server_settings`)."""
    settings = Settings()
    ordered = [(True, source) for source in repository] + [(False, source) for source in sources]
    for from_repository, (name, raw) in ordered:
        values = as_table(raw)
        if isinstance(values, Mapping):  # recall.config_fields
            settings = apply(settings, name, values, warn, from_repository=from_repository)
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
