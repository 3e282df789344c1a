"""``python -m mcp_server`` is ``tether mcp``: the same options, and the same project (the
agent's ``CLAUDE_PROJECT_DIR`` when it sets one, else the current directory)."""

import sys

from recall.cli.main import main

raise SystemExit(main(["mcp", *sys.argv[1:]]))
