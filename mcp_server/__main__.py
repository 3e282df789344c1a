"""``python -m mcp_server`` serves as ``tether mcp`` does: the same options, and the same
project (the agent's ``CLAUDE_PROJECT_DIR`` when it sets one, else the current directory)."""

import sys
from pathlib import Path

from mcp_server.server import run
from recall.stdio_servers import agent_project, module_arguments

args = module_arguments("mcp_server", sys.argv[1:], stdio=False)
raise SystemExit(run(agent_project(Path.cwd()), log_level=args.log_level))
