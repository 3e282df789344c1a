"""``tether mcp``: run the MCP server over stdio (the SDK and the server package are loaded only
here, inside the command, through its entry point, so the rest of the CLI starts without
them)."""

from __future__ import annotations

import argparse
from pathlib import Path

from recall.cli.context import CommandContext
from recall.errors import BadInput
from recall.std_streams import STDIN_CLOSED, StdinClosed
from recall.stdio_servers import (
    AGENT_PROJECT_VARIABLE,
    agent_project,
    log_level_option,
    no_memories_at,
    stdin_closed,
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``mcp`` to the CLI."""
    p = sub.add_parser(
        "mcp",
        help="run the MCP server over stdio: memory tools for agents",
        parents=[],  # no --json: the server speaks JSON-RPC on stdio whatever is asked
        description=(
            "Serve the memory tools over stdio. The project is the repository around "
            f"`tether -C DIR`, else ${AGENT_PROJECT_VARIABLE} when the agent sets it, "
            "else the current directory."
        ),
    )
    log_level_option(p)
    p.set_defaults(func=run_mcp)


def project_dir(args: argparse.Namespace, ctx: CommandContext) -> Path:
    """Where the server looks for its repository: ``-C``, the agent's variable, the cwd."""
    if getattr(args, "directory", None) is None:
        return agent_project(lambda: ctx.cwd)
    return ctx.cwd


def run_mcp(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Serve one client until it disconnects."""
    if ctx.json:
        raise BadInput("mcp speaks JSON-RPC on stdio; --json does not apply to it")
    if stdin_closed():  # the SDK would read it as an empty input, quietly
        raise StdinClosed(STDIN_CLOSED)
    project = project_dir(args, ctx)
    problem = no_memories_at(project)
    if problem is not None:
        raise BadInput(problem)
    from recall.cli.servers import server

    return server("mcp")(project, log_level=args.log_level)
