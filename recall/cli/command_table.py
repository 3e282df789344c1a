"""Which module holds each command: the lean ones agents run, and every one in listing order."""

from __future__ import annotations

from types import ModuleType
from typing import Final

LEAN_COMMANDS: Final = {
    "hook": "recall.cli.cmd_hook",
    "mcp": "recall.cli.cmd_mcp",
    "inject": "recall.cli.cmd_recall",
    "recall": "recall.cli.cmd_recall",
    "import": "recall.cli.cmd_io",
    "export": "recall.cli.cmd_io",
}
"""Commands agents run (a hook before every prompt and edit, the MCP server at each session
start, ``inject`` and ``recall`` from their own hooks and scripts), parsed with their own module
only: the other commands' modules (curation, maintenance, the browser, distill) cost start-up
time that a hook's 250 ms budget cannot spare, and an edit hook never needs the ranking
engine (numpy) at all. ``import`` and ``export`` too: scripts run them over whole histories,
and the other modules are a tenth of a second of CPU that a bulk import is measured against."""

NO_JSON: Final = frozenset({"browse", "lsp", "mcp"})
"""Commands whose output is no data ``--json`` could shape (the terminal browser; the servers,
which speak JSON-RPC on stdio): ``--json`` is refused for them with the reason, and left out of
their ``--help``."""

COMMAND_SUGGESTIONS = 3
"""Commands offered for a mistyped one: enough for a near miss, few enough to read."""


def command_modules() -> tuple[ModuleType, ...]:
    """Every command module, in the order their commands are listed."""
    from recall.cli import (
        cmd_agent_config,
        cmd_browse,
        cmd_check,
        cmd_cleanup,
        cmd_distill,
        cmd_editor,
        cmd_genome,
        cmd_hook,
        cmd_io,
        cmd_listing,
        cmd_lsp,
        cmd_maint,
        cmd_mcp,
        cmd_memory,
        cmd_recall,
        cmd_session,
        cmd_state,
        cmd_stats,
        cmd_warm,
    )

    return (
        cmd_memory,
        cmd_listing,
        cmd_state,
        cmd_recall,
        cmd_genome,
        cmd_io,
        cmd_maint,
        cmd_check,
        cmd_stats,
        cmd_session,
        cmd_cleanup,
        cmd_browse,
        cmd_distill,
        cmd_lsp,
        cmd_mcp,
        cmd_editor,
        cmd_hook,
        cmd_agent_config,
        cmd_warm,
    )
