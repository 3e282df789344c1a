"""What the two stdio servers share however they are started, as ``tether lsp`` and ``tether
mcp`` or as ``python -m lsp_server`` and ``python -m mcp_server``: their options, the project
an agent names for its MCP server, and a closed standard input said, not served as empty."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from recall.std_streams import STDIN_CLOSED, ClosedStdin

LOG_LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR")
"""What a server may log on stderr, least to most serious."""

AGENT_PROJECT_VARIABLE: Final = "CLAUDE_PROJECT_DIR"
"""Claude Code names the session's project in this variable when it starts a stdio MCP server;
a plugin's server may otherwise start in the plugin's own folder."""


def log_level_option(parser: Any) -> None:
    """The ``--log-level`` option of the commands that run a server over stdio."""
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=LOG_LEVELS,
        help="what the server logs on stderr (default WARNING)",
    )


def stdio_flag(parser: Any) -> None:
    """``--stdio``, which some editors pass to every language server they start."""
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="accepted for clients that pass it; stdio is the only transport",
    )


def agent_project(cwd: Callable[[], Path]) -> Path:
    """Where an MCP server looks for its repository when no folder was given: the agent's
    :data:`AGENT_PROJECT_VARIABLE` (a relative one from ``cwd()``), else ``cwd()``. ``cwd`` is
    asked only when needed: an agent that names its project serves it even from a current
    folder since deleted."""
    named = os.environ.get(AGENT_PROJECT_VARIABLE, "").strip()
    if not named:
        return cwd()
    path = Path(named).expanduser()
    return (path if path.is_absolute() else cwd() / path).resolve()


def no_memories_at(project: Path) -> str | None:
    """Why an MCP server started for ``project`` would have no memories to serve: no repository
    there, and a ``TETHER_HOME`` that cannot be used (:func:`recall.locations.global_location`);
    None when it has some. In a repository it serves the project's memories without the
    user-wide ones, as every read does."""
    from recall.locations import HomeUnusable, global_location, nothing_to_serve
    from recall.repo import find_root

    if find_root(project) is not None:
        return None
    try:
        global_location(project)
    except HomeUnusable as error:
        return nothing_to_serve(project, str(error))
    return None


def stdin_closed() -> bool:
    """Whether the process has no standard input (started with ``<&-``): a server would read
    it as a client that said nothing and left."""
    return sys.stdin is None or isinstance(sys.stdin, ClosedStdin)


def module_arguments(module: str, argv: Sequence[str], *, stdio: bool) -> argparse.Namespace:
    """The options of ``python -m MODULE`` (those of the ``tether`` command it stands for):
    an unknown one, a closed standard input or a ``TETHER_*`` variable that cannot be read
    ends the process with exit 2, said on stderr, as the command refuses them
    (``TETHER_HOME`` is decided where the user-wide store is used: :mod:`recall.env_check`)."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}")
    if stdio:
        stdio_flag(parser)
    log_level_option(parser)
    args = parser.parse_args(list(argv))
    if stdin_closed():
        parser.exit(2, f"{parser.prog}: error: {STDIN_CLOSED}\n")
    from recall.env_check import unreadable

    problems = unreadable()  # as the CLI refuses them: TETHER_NOW, ...
    if problems:
        parser.exit(2, f"{parser.prog}: error: {problems[0][1]}\n")
    return args
