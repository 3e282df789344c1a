"""What one refresh of the genome read, kept and skipped: apart from the query results, as
only a refresh (never a query, which every agent hook makes) builds one."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class IndexSummary:
    """What one refresh read, kept and skipped, and how long each phase took."""

    mode: str = "unchanged"
    head: str | None = None
    commits_read: int = 0
    commits_skipped_large: int = 0
    cochange_pairs: int = 0
    renames: int = 0
    files_tracked: int = 0
    files_scanned: int = 0
    files_cached: int = 0
    files_skipped: dict[str, int] = field(
        default_factory=lambda: {"binary": 0, "huge": 0, "non_utf8": 0, "unreadable": 0}
    )
    import_edges: int = 0
    symbol_files_parsed: int = 0
    symbol_files_reused: int = 0
    symbol_parsers: dict[str, int] = field(default_factory=dict)
    """How many parsed files each reader took (tree-sitter, regex, skipped: why)."""
    symbol_fallbacks: list[str] = field(default_factory=list)
    """Why files were read by the regex finder (a grammar that did not load, a parse error)."""
    notices: list[str] = field(default_factory=list)
    elapsed_ms: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain JSON-ready data."""
        return asdict(self)
