"""Tether's engine: memories tied to files, their index, the repository genome and recall.

This package knows nothing of the Language Server Protocol; ``lsp_server`` adapts it.
"""

__version__ = "0.1.0"
