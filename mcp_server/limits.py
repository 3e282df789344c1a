"""How much the MCP tools hand back at once; each number with the reason it has its value."""

from __future__ import annotations

from typing import Final

LIMIT_MIN: Final = 1
"""The smallest ``limit`` either tool accepts: a limit of none would answer nothing, which an
agent would read as nothing being known."""

RECALL_LIMIT: Final = 5
"""Memories ``memory_recall`` returns unless asked for more. An agent reads every line it is
given; five one-line summaries cover the top of the ranking (the prompt hook injects three)
without crowding the context, and the tool can be asked again with a larger ``limit``."""

RECALL_MAX: Final = 20
"""The largest ``limit`` ``memory_recall`` accepts: past twenty, hits are weak matches an agent
would not act on, and a search (``memory_list`` by file) serves browsing better."""

LIST_LIMIT: Final = 50
"""Memories ``memory_list`` returns unless asked for more, newest first: a file rarely holds
more, and a whole store of thousands must not land in an agent's context by accident (the
result says how many there were in all). The editor's list (the language server's
``tether.list``) defaults to ten times this: a person scrolls it, nothing fills a context."""

LIST_MAX: Final = 500
"""The largest ``limit`` ``memory_list`` accepts: enough to page through a busy folder, still
bounded for a store of 100k memories."""
