"""Tether's language server: adapts LSP traffic to the engine in ``recall`` and back.

``recall`` never imports this package; ``tether lsp`` imports it lazily.
"""
