"""The genome: existence, co-change, renames and import fan-in of a repository's files."""

from __future__ import annotations

from recall.genome.genome import Genome
from recall.genome.limits import MAX_COMMIT_FILES
from recall.genome.results import Neighbour

__all__ = ["MAX_COMMIT_FILES", "Genome", "IndexSummary", "Neighbour"]


def __getattr__(name: str) -> object:
    """:class:`IndexSummary`, imported on first use: only a refresh makes one."""
    if name == "IndexSummary":
        from recall.genome.summary import IndexSummary

        return IndexSummary
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
