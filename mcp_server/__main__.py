"""``python -m mcp_server`` serves as ``tether mcp`` does: the same options, and the same
project (the agent's ``CLAUDE_PROJECT_DIR`` when it sets one, else the current directory)."""

import sys

from mcp_server.server import run
from recall.errors import EXIT_BAD_INPUT
from recall.locations import FolderGone, current_folder
from recall.stdio_servers import (
    AGENT_PROJECT_VARIABLE,
    agent_project,
    module_arguments,
    no_memories_at,
)

args = module_arguments("mcp_server", sys.argv[1:], stdio=False)
FIX = f"cd to an existing folder, or set {AGENT_PROJECT_VARIABLE} to the project's folder"
try:
    project = agent_project(lambda: current_folder(FIX))
except FolderGone as error:  # refused as `tether mcp` refuses it, in one line
    print(f"python -m mcp_server: error: {error}", file=sys.stderr)
    raise SystemExit(EXIT_BAD_INPUT) from None
problem = no_memories_at(project)
if problem is not None:  # as `tether mcp` refuses it
    print(f"python -m mcp_server: error: {problem}", file=sys.stderr)
    raise SystemExit(EXIT_BAD_INPUT)
raise SystemExit(run(project, log_level=args.log_level))
