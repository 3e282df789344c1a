"""``python -m lsp_server`` runs the language server over stdio (same as ``tether lsp``)."""

from lsp_server.setup import run

raise SystemExit(run())
