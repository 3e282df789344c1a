"""``python -m lsp_server`` serves as ``tether lsp`` does, with the same options (``--stdio``,
``--log-level``)."""

import sys

from lsp_server.setup import run
from recall.stdio_servers import module_arguments

args = module_arguments("lsp_server", sys.argv[1:], stdio=True)
raise SystemExit(run(log_level=args.log_level))
