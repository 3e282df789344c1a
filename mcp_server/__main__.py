"""``python -m mcp_server`` serves as ``tether mcp`` does: the same options, and the same
project (the agent's ``CLAUDE_PROJECT_DIR`` when it sets one, else the current directory)."""

import sys
from pathlib import Path

from mcp_server.server import run
from recall.stdio_servers import agent_project, module_arguments, no_memories_at

args = module_arguments("mcp_server", sys.argv[1:], stdio=False)
project = agent_project(Path.cwd())
problem = no_memories_at(project)
if problem is not None:  # as `tether mcp` refuses it
    print(f"python -m mcp_server: error: {problem}", file=sys.stderr)
    raise SystemExit(2)
raise SystemExit(run(project, log_level=args.log_level))
