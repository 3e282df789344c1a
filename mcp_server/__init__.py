"""Tether's MCP server: the memory tools an agent calls, adapted to the engine in ``recall``.

``recall`` never imports this package; ``tether mcp`` imports it lazily.
"""
