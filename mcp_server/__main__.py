"""``python -m mcp_server`` runs the MCP server over stdio (same as ``tether mcp``)."""

from pathlib import Path

from mcp_server.server import run

raise SystemExit(run(Path.cwd()))
