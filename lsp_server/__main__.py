"""``python -m lsp_server`` is ``tether lsp``: the same options (``--stdio``, ``--log-level``)."""

import sys

from recall.cli.main import main

raise SystemExit(main(["lsp", *sys.argv[1:]]))
