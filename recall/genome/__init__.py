"""The genome: existence, co-change, renames and import fan-in of a repository's files."""

from __future__ import annotations

from recall.genome.genome import Genome
from recall.genome.limits import MAX_COMMIT_FILES
from recall.genome.results import IndexSummary, Neighbour

__all__ = ["MAX_COMMIT_FILES", "Genome", "IndexSummary", "Neighbour"]
